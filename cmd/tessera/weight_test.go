package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLeavesOutUnusedSDKs lists the packages the tessera binary is
// built from and fails on any that only weighs it down: blob drivers and
// cloud SDKs Tessera does not use (it stores files on disk, in memory for
// tests, or on S3-compatible storage), and the libraries only its tests
// use. gocloud.dev's own core (its error codes and retries) brings gRPC,
// OpenTelemetry and Google's API error package, and stays: they are what
// gocloud.dev/blob is built on (docs/benchmarks.md, "The first build").
func TestBinaryLeavesOutUnusedSDKs(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{
		"gocloud.dev/blob/gcsblob", "gocloud.dev/blob/azureblob", "gocloud.dev/gcp", "gocloud.dev/azure",
		"cloud.google.com/go/storage", "github.com/Azure/",
		"github.com/chromedp/", "github.com/pb33f/", "github.com/johannesboyne/gofakes3",
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 100 {
		t.Fatalf("go list -deps listed %d packages; expected the whole build", len(pkgs))
	}
	for _, p := range pkgs {
		for _, b := range banned {
			if strings.HasPrefix(p, b) {
				t.Errorf("the binary is built with %s", p)
			}
		}
	}
}
