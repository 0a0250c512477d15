"""The web app: wires the API, the pages and the static files together.

Run it with ``uvicorn app.main:app``.
"""

from fastapi.exceptions import RequestValidationError
from fastapi_offline import FastAPIOffline

from app import api, errors, pages
from app.model.minilm import ModelUnavailable
from app.params import InputError

def create_app():
    app = FastAPIOffline(
        title="Attention Lens",
        description="Attention, stage by stage: similarity, softmax weights, weighted sum of the values. "
        "Every page URL has a JSON twin at /api/attention with the same query string.",
        version="1.0",
    )
    app.add_exception_handler(RequestValidationError, errors.on_validation_error)
    app.add_exception_handler(InputError, errors.on_input_error)
    app.add_exception_handler(ModelUnavailable, errors.on_model_unavailable)
    app.include_router(api.router)
    app.include_router(pages.router)
    return app


app = create_app()
