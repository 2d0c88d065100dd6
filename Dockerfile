# The dnecho runner image: a drop-in for grafana/k6 in k6-operator TestRuns, and the image of the
# aggregator and of plain Kubernetes Jobs (deploy/k8s/). The operator runs `sh -c` scripts calling
# `k6 archive`, `k6 inspect` and `k6 run` (grafana/k6-operator pkg/resources/jobs/initializer.go,
# runner.go), so the image has k6 on PATH (a link to dnecho, which answers to that name), sh,
# coreutils and grep (busybox), a writable /tmp, and runs as an unprivileged user like grafana/k6.
#
#   docker build -t dnecho:dev --build-arg VERSION=$(scripts/version.sh version) \
#     --build-arg REVISION=$(scripts/version.sh revision) .
#   docker run --rm dnecho:dev version
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG REVISION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/dnecho ./cmd/dnecho

FROM alpine:3.20
RUN apk add --no-cache ca-certificates \
 && adduser -D -u 12345 -g "" k6
COPY --from=build /out/dnecho /usr/bin/dnecho
RUN ln -s /usr/bin/dnecho /usr/bin/k6
USER 12345
WORKDIR /home/k6
ENTRYPOINT ["dnecho"]
