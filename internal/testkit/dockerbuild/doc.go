// Package dockerbuild tests the container image's build without a container
// engine: the Dockerfile's build command (scripts/build-static.sh) must give
// a static, cgo-enabled farebox, the server build (without dev, call and
// chat, nor what only they link), that starts with an empty environment and
// answers /healthz, and the Dockerfile must keep running that command.
package dockerbuild
