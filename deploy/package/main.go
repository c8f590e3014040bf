// Command package builds what deploy/cloudformation.yaml deploys, into one
// directory (make package: dist/):
//
//	notifier.zip, approvals-events.zip, each one executable file, bootstrap:
//	approvals-archive.zip                the Lambda (provided.al2023, arm64),
//	                                     built with -tags lambda.norpc
//	                                     -trimpath -ldflags='-s -w'; the zip
//	                                     has a fixed time and mode, so the
//	                                     same binary gives the same zip
//	definitions/*.asl.json               the shipped workflows, unedited, for
//	                                     DefinitionsPrefix
//	approvals-bot                        the bot for the image, linux/arm64
//
// Run it from the repository root:
//
//	go run ./deploy/package -out dist
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// zipTime is the modification time of every zip entry: a fixed one, so a
// zip's bytes depend on its contents only.
var zipTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// lambdas are the Lambda functions: zip name → main package.
var lambdas = []struct{ zip, pkg string }{
	{"notifier.zip", "./cmd/notifier"},
	{"approvals-events.zip", "./cmd/approvals-events"},
	{"approvals-archive.zip", "./cmd/approvals-archive"},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "package: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("package", flag.ContinueOnError)
	out := flags.String("out", "dist", "the directory to build into")
	bot := flags.Bool("bot", true, "also build the bot's linux/arm64 binary")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flags.Args())
	}
	if err := buildAll(ctx, ".", *out, *bot); err != nil {
		return err
	}
	var zips []string
	for _, l := range lambdas {
		zips = append(zips, l.zip)
	}
	fmt.Fprintf(stdout, "built in %s: %s, definitions/", *out, strings.Join(zips, ", "))
	if *bot {
		fmt.Fprint(stdout, ", approvals-bot")
	}
	fmt.Fprintln(stdout)
	return nil
}

// buildAll builds the Lambda zips, copies the definitions and, with bot,
// builds the bot into out; root is the repository's root.
func buildAll(ctx context.Context, root, out string, bot bool) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "definitions"), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	tmp, err := os.MkdirTemp("", "package-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, l := range lambdas {
		binary := filepath.Join(tmp, strings.TrimSuffix(l.zip, ".zip"), "bootstrap")
		if err := goBuild(ctx, root, binary, l.pkg, "-tags", "lambda.norpc"); err != nil {
			return err
		}
		if err := writeZip(filepath.Join(out, l.zip), binary); err != nil {
			return err
		}
	}
	for _, name := range definitions.Names() {
		def, err := definitions.Load(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "definitions", name), def, 0o644); err != nil {
			return fmt.Errorf("copy the definition %s: %w", name, err)
		}
	}
	if bot {
		return goBuild(ctx, root, filepath.Join(out, "approvals-bot"), "./cmd/approvals-bot")
	}
	return nil
}

// goBuild builds pkg (relative to root) for linux/arm64, static and
// stripped, into binary.
func goBuild(ctx context.Context, root, binary, pkg string, flags ...string) error {
	args := append([]string{"build"}, flags...)
	args = append(args, "-trimpath", "-ldflags=-s -w", "-o", binary, pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.String())
	}
	return nil
}

// writeZip writes a zip holding binary as the executable bootstrap, with
// the fixed time, so that the same binary always gives the same bytes.
func writeZip(path, binary string) (err error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	h := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate, Modified: zipTime}
	h.SetMode(0o755)
	w, err := zw.CreateHeader(h)
	if err != nil {
		return fmt.Errorf("zip %s: %w", path, err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("zip %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		return errors.Join(fmt.Errorf("zip %s", path), err)
	}
	return nil
}
