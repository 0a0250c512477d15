"""HTTP only: routes, the JSON API, the HTML pages and their assets, middleware, error answers."""
