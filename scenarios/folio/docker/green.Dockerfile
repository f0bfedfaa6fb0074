# Green agent (FOLIO assessor). Datasets: the embedded sample works offline; mount FOLIO files at
# /shared/data (or set AGENTBEATS_DATA_DIR) for the other manifest entries.
# AgentBeats contract: linux/amd64, curl for health checks, hash-locked dependencies, non-root user,
# no secrets in the image; ENTRYPOINT + CMD so `--host --port --card-url` pass through.
# Build from the repository root:
#   docker build --platform linux/amd64 -f scenarios/folio/docker/green.Dockerfile -t agentified-green .
FROM --platform=linux/amd64 python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    AGENTBEATS_MANIFEST=/app/scenarios/folio/manifest.toml \
    GREEN_AGENT_MANIFEST_ONLY=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements-runtime.lock ./
RUN pip install --require-hashes --no-deps -r requirements-runtime.lock
COPY pyproject.toml README.md LICENSE ./
COPY green_agent ./green_agent
COPY white_agents ./white_agents
COPY scenarios ./scenarios
RUN pip install --no-deps . \
    && useradd --create-home --uid 10001 agent

USER agent
EXPOSE 9009
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD curl -fsS http://127.0.0.1:9009/.well-known/agent-card.json > /dev/null || exit 1
ENTRYPOINT ["python", "-m", "green_agent"]
CMD ["--host", "0.0.0.0", "--port", "9009"]
