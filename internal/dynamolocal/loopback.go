package dynamolocal

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// loopbackSource starts DynamoDB Local bound to 127.0.0.1: the jar's own
// main binds every interface and has no option to choose one.
//
//go:embed loopback/LoopbackServer.java
var loopbackSource []byte

// loopbackClass is the launcher's class name.
const loopbackClass = "LoopbackServer"

// crossOriginGuard is the -cors allow-list DynamoDB Local is started with:
// an origin no web page can have (.invalid is reserved), so a page open
// in a browser on this machine cannot call it. DynamoDB's requests are
// JSON POSTs with X-Amz-Target, which browsers preflight.
const crossOriginGuard = "http://dynamodb-local.invalid"

// loopbackClasses returns a folder holding the launcher compiled against
// the jar in dir, compiling it with javac (given, else beside java, else
// on the PATH) into the user's cache folder on first use. It fails when
// no javac is found, as with a Java runtime without its development kit.
func loopbackClasses(ctx context.Context, java, javac, dir string) (string, error) {
	if javac == "" {
		var err error
		if javac, err = findJavac(java); err != nil {
			return "", err
		}
	} else if _, err := os.Stat(javac); err != nil {
		return "", fmt.Errorf("%w (%v)", errNoJavac, err)
	}
	jar := filepath.Join(dir, "DynamoDBLocal.jar")
	info, err := os.Stat(jar)
	if err != nil {
		return "", err
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\x00%d\x00%d\x00", jar, info.Size(), info.ModTime().UnixNano())
	sum.Write(loopbackSource)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "sfnapprovals", "dynamodb-local-loopback", hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(out, loopbackClass+".class")); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Compiled apart, then renamed into place, so that test binaries
	// starting at once never see half a class.
	tmp, err := os.MkdirTemp(filepath.Dir(out), "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, loopbackClass+".java")
	if err := os.WriteFile(src, loopbackSource, 0o644); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, javac, "-nowarn", "-cp", jar+string(os.PathListSeparator)+filepath.Join(dir, "DynamoDBLocal_lib", "*"), "-d", tmp, src)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compile the loopback launcher with %s: %w: %s", javac, err, strings.TrimSpace(string(msg)))
	}
	if err := os.Rename(tmp, out); err != nil {
		if _, statErr := os.Stat(filepath.Join(out, loopbackClass+".class")); statErr == nil {
			return out, nil // another process won the race
		}
		return "", err
	}
	return out, nil
}

var errNoJavac = errors.New("javac not found (a Java runtime without its development kit): DynamoDB Local cannot be bound to 127.0.0.1 and listens on every interface; apt-get install openjdk-17-jdk-headless binds it to loopback")

// findJavac returns the javac beside java (following links), else javac
// on the PATH.
func findJavac(java string) (string, error) {
	if real, err := filepath.EvalSymlinks(java); err == nil {
		javac := filepath.Join(filepath.Dir(real), "javac")
		if info, err := os.Stat(javac); err == nil && !info.IsDir() {
			return javac, nil
		}
	}
	if path, err := exec.LookPath("javac"); err == nil {
		return path, nil
	}
	return "", errNoJavac
}
