"""From a link to a view: the parameters (their one declaration), the validated state, the canonical
link, and the data of one view computed by the engine. No HTTP here."""
