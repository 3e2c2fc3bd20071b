// Package editortest holds the editor's journeys: its browser tests
// (headless Chromium through every screen, on both stores) and the API
// scenarios only the editor's screens make, with the benchmark of its
// entries table. They share apitest's server and fixtures
// (apitest/fixtures.go) and live apart from apitest's conformance
// scenarios so that `go test ./...` builds and runs the two packages in
// parallel.
package editortest
