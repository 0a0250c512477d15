"""A view as the page sees it: the API's answer with the resource it names for what every sentence at its
settings shares (`fixed.href`, app/view/fixed.py) put back in, fetched through the same client."""

from app.view.fixed import whole_view


def whole(client, answer: dict) -> dict:
    """The view of a /api/attention answer (a JSON object): its fixed resource fetched and put back in."""
    href = (answer.get("fixed") or {}).get("href")
    if href is None:
        return whole_view(answer, None)
    response = client.get(href)
    assert response.status_code == 200, response.text
    return whole_view(answer, response.json())
