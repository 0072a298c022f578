# syntax=docker/dockerfile:1
# seald: a static binary (every dependency is pure Go: modernc SQLite, go-ethereum's no-cgo crypto) in a
# distroless image that runs as a non-root user. Build from the repository root:
#   docker build -t seald:latest .
# See docs/operations.md.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/seald ./cmd/seald \
 && mkdir -p /out/data

# distroless/static: no shell, no package manager, CA certificates and tzdata only; "nonroot" is uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/seald /usr/local/bin/seald
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV SEALD_DATA_DIR=/data \
    SEALD_ADDR=0.0.0.0:8080
VOLUME ["/data"]
EXPOSE 8080
# No HEALTHCHECK: the image has no tool to run one. Probe GET /healthz (alive) and GET /readyz (store, IPFS,
# chain and SMTP reachable) from the orchestrator instead.
ENTRYPOINT ["/usr/local/bin/seald"]
CMD ["serve"]
