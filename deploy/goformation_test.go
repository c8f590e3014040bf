package deploy

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/awslabs/goformation/v7"
	"github.com/awslabs/goformation/v7/cloudformation"
	"github.com/awslabs/goformation/v7/intrinsics"
)

var goformationMu sync.Mutex

// parseStrict parses a template with goformation, taking every !If's
// then branch (branch 1) or else branch (branch 2), so that across the
// two parses every property of every resource is decoded. goformation
// decodes each resource with json.Decoder.DisallowUnknownFields, so an
// unknown or misspelt property, at any depth, is an error ("json: unknown
// field …"); so is an unknown resource type. Its intrinsic handlers
// resolve !Ref to a parameter's default and !GetAtt to nothing, which
// decode as any property of the right type.
func parseStrict(text []byte, branch int) (*cloudformation.Template, error) {
	// goformation registers its YAML tags in a package map on every
	// parse, so parses must not overlap.
	goformationMu.Lock()
	defer goformationMu.Unlock()
	pick := func(_ string, input, _ any) any {
		if args, ok := input.([]any); ok && len(args) == 3 {
			return args[branch]
		}
		return nil
	}
	return goformation.ParseYAMLWithOptions(text, &intrinsics.ProcessorOptions{
		IntrinsicHandlerOverrides: map[string]intrinsics.IntrinsicHandler{"Fn::If": pick},
	})
}

func TestTemplateParsesStrictly(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := parseTemplate(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	resources := len(plain.path("Resources").Content) / 2
	for _, branch := range []int{1, 2} {
		tmpl, err := parseStrict(text, branch)
		if err != nil {
			t.Fatalf("goformation (branch %d of every !If): %v", branch, err)
		}
		if len(tmpl.Resources) != resources || resources == 0 {
			t.Errorf("goformation decoded %d resources, the template has %d", len(tmpl.Resources), resources)
		}
		for name, r := range tmpl.Resources {
			if strings.HasPrefix(r.AWSCloudFormationType(), "Custom::") {
				t.Errorf("%s is a custom resource", name)
			}
		}
	}
}

// The strict parse fails on a misspelt property, at the top of a resource
// and nested, and on an unknown resource type.
func TestStrictParseFindsMistakes(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"a misspelt property", "      StateMachineType: STANDARD\n      RoleArn: !GetAtt PublishWithApprovalRole.Arn\n",
			"      StateMachineTyp: STANDARD\n      RoleArn: !GetAtt PublishWithApprovalRole.Arn\n", `unknown field "StateMachineTyp"`},
		{"a misspelt nested property", "        AttributeName: purgeAt\n        Enabled: true\n",
			"        AttributeName: purgeAt\n        Enable: true\n", `unknown field "Enable"`},
		{"a misspelt property in a !If branch", "          SSEType: KMS\n", "          SSETyp: KMS\n", `unknown field "SSETyp"`},
		{"an unknown resource type", "    Type: AWS::EC2::SecurityGroup\n", "    Type: AWS::EC2::SecurityGrup\n", "json: Unmarshal(nil)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(string(text), tt.old) != 1 {
				t.Fatalf("the template holds %q %d times, want once", tt.old, strings.Count(string(text), tt.old))
			}
			broken := []byte(strings.Replace(string(text), tt.old, tt.new, 1))
			var errs []string
			for _, branch := range []int{1, 2} {
				if _, err := parseStrict(broken, branch); err != nil {
					errs = append(errs, err.Error())
				}
			}
			if len(errs) == 0 || !strings.Contains(strings.Join(errs, "; "), tt.want) {
				t.Errorf("errors %q, want one containing %q", errs, tt.want)
			}
		})
	}
}
