# Reference white agent (decides from the gold FOL the assessor exposes; no LLM).
# AgentBeats contract: linux/amd64, curl for health checks, hash-locked dependencies, non-root user,
# no secrets in the image; ENTRYPOINT + CMD so `--host --port --card-url` pass through.
# Build from the repository root:
#   docker build --platform linux/amd64 -f scenarios/folio/docker/reference.Dockerfile -t agentified-reference .
FROM --platform=linux/amd64 python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True

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
ENTRYPOINT ["python", "-m", "white_agents.reference"]
CMD ["--host", "0.0.0.0", "--port", "9009"]
