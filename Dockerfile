# farebox in a container: a static, cgo-enabled build FROM scratch.
#
#   docker build -t farebox .
#   docker run --rm -p 8402:8402 -v "$PWD/farebox.yaml:/etc/farebox/farebox.yaml:ro" \
#     -e OPENAI_API_KEY -e FAREBOX_RELAYER_KEY farebox
#
# The build stage runs scripts/build-static.sh, the same command
# internal/testkit/dockerbuild tests outside a container engine. The image is the
# server: its farebox is built with -tags server, without `farebox dev` and
# the in-process chain, nor the clients `farebox call` and `farebox chat`
# (run them with `go run ./cmd/farebox ...` from a checkout).

ARG GO_VERSION=1.26.8

FROM docker.io/library/golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN sh scripts/build-static.sh /out

FROM scratch
# TLS to upstreams, facilitators and RPC endpoints needs the CA roots.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/farebox /out/farebox-healthcheck /usr/local/bin/
# A numeric UID needs no /etc/passwd and satisfies runAsNonRoot checks.
USER 65532:65532
ENV FAREBOX_ADDR=0.0.0.0:8402 \
    FAREBOX_CONFIG=/etc/farebox/farebox.yaml
EXPOSE 8402
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/farebox-healthcheck"]
ENTRYPOINT ["/usr/local/bin/farebox"]
CMD ["serve"]
