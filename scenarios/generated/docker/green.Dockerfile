# Green agent: the generated FOL assessor (problems made from a seed at run time; docs/generated.md).
# Build from the repository root (the images are linux/amd64, as AgentBeats runs them):
#   docker build --platform linux/amd64 -f scenarios/generated/docker/green.Dockerfile -t agentified-generated-green .
# Runs as uid 10001 in a root-owned /app; the only place it writes is $AGENTBEATS_RUN_DIR
# (/var/lib/agentified/runs: the journals that let a repeated assessment resume). Its HOME is root-owned
# and user site-packages are off (PYTHONNOUSERSITE=1, python -s): nothing it can write is ever imported.
# The health check fetches the agent card on $AGENT_PORT, which is also the default --port.
# Amber runs the image with the full command from scenarios/generated/amber/green.amber-manifest.json5.
FROM python:3.11.16-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONNOUSERSITE=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    AGENTBEATS_RUN_DIR=/var/lib/agentified/runs

WORKDIR /app
# The build backend (pyproject's [build-system]) is hash-pinned too: our package builds without isolation.
COPY requirements-runtime.lock requirements-build.lock ./
RUN pip install --no-cache-dir --require-hashes --no-deps -r requirements-runtime.lock \
    && pip install --no-cache-dir --require-hashes --no-deps -r requirements-build.lock
COPY pyproject.toml README.md LICENSE ./
COPY green_agent ./green_agent
COPY white_agents ./white_agents
COPY scenarios ./scenarios
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
    && rm -rf build ./*.egg-info \
    && useradd --no-log-init --no-create-home --home-dir /home/agent --uid 10001 --user-group agent \
    && install -d -m 0755 -o root -g root /home/agent \
    && install -d -o 10001 -g 10001 /var/lib/agentified/runs

USER 10001:10001
ENV AGENT_PORT=9009 \
    HOME=/home/agent
EXPOSE 9009
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-s", "-m", "green_agent.healthcheck"]
ENTRYPOINT ["python", "-s", "-m", "green_agent", "--assessor", "generated"]
CMD ["--host", "0.0.0.0"]
