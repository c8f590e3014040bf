package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var pinned = regexp.MustCompile(`^FROM (--platform=\S+ )?[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}( AS \w+)?$`)

// dockerfileProblems lists the base images of a Dockerfile not pinned by
// digest (with their tag kept for reading), and a health check that is not
// the bot's own.
func dockerfileProblems(text string) []string {
	var problems []string
	froms, health := 0, false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "FROM "):
			froms++
			if !pinned.MatchString(line) {
				problems = append(problems, "not pinned by digest: "+line)
			}
		case strings.HasPrefix(line, "HEALTHCHECK "):
			health = strings.HasSuffix(line, `CMD ["/approvals-bot", "-healthcheck"]`)
		}
	}
	if froms == 0 {
		problems = append(problems, "no FROM")
	}
	if !health {
		problems = append(problems, `no HEALTHCHECK … CMD ["/approvals-bot", "-healthcheck"]`)
	}
	return problems
}

// Every base image is pinned by digest, and the container checks its
// health with -healthcheck.
func TestDockerfilePinsItsBaseImages(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dockerfileProblems(string(text)) {
		t.Error(p)
	}
	unpinned := strings.Replace(string(text), "@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab", "", 1)
	if len(dockerfileProblems(unpinned)) != 1 {
		t.Error("the check misses a base image pinned by tag only")
	}
}
