# Auto-formalization white agent (Z3Py in the sandbox, or --mode fol). Model and key at run time:
# -e LLM_MODEL=gemini/gemini-2.5-flash -e GEMINI_API_KEY=...  Extra flags go after the image name, e.g.
# docker run IMAGE --host 0.0.0.0 --port 9009 --mode z3py --max-repairs 3
# AgentBeats contract: linux/amd64, curl for health checks, hash-locked dependencies, non-root user,
# no secrets in the image; ENTRYPOINT + CMD so `--host --port --card-url` pass through.
# Build from the repository root:
#   docker build --platform linux/amd64 -f scenarios/folio/docker/autoformalizer.Dockerfile -t agentified-autoformalizer .
FROM --platform=linux/amd64 python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True

RUN apt-get update \
    && apt-get install -y --no-install-recommends curl bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements-llm.lock ./
RUN pip install --require-hashes --no-deps -r requirements-llm.lock
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
ENTRYPOINT ["python", "-m", "white_agents.autoformalizer"]
CMD ["--host", "0.0.0.0", "--port", "9009"]
