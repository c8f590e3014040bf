package deploy

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// ingressIn lists where a template lets anything in: an ingress rule on a
// security group, or an ingress resource. Every security group must allow
// outbound HTTPS and nothing else.
func ingressIn(text []byte) ([]string, error) {
	tmpl, err := parseTemplate(text, nil)
	if err != nil {
		return nil, err
	}
	var found []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				key, v := n.Content[i].Value, n.Content[i+1]
				if key == "SecurityGroupIngress" {
					found = append(found, path+"."+key)
				}
				if key == "Type" && strings.Contains(v.Value, "Ingress") {
					found = append(found, path+" is "+v.Value)
				}
				walk(v, path+"."+key)
			}
		}
		for _, c := range n.Content {
			if n.Kind != yaml.MappingNode {
				walk(c, path)
			}
		}
	}
	walk(tmpl.root, "")
	resources := tmpl.path("Resources")
	for i := 0; i+1 < len(resources.Content); i += 2 {
		id := resources.Content[i].Value
		if tmpl.resourceType(id) != "AWS::EC2::SecurityGroup" {
			continue
		}
		egress := tmpl.get(tmpl.path("Resources", id, "Properties"), "SecurityGroupEgress")
		if egress == nil || len(egress.Content) == 0 {
			found = append(found, id+" has no egress rules, so it allows all outbound traffic")
			continue
		}
		for _, rule := range egress.Content {
			proto, _ := tmpl.single(tmpl.get(rule, "IpProtocol"))
			from, _ := tmpl.single(tmpl.get(rule, "FromPort"))
			to, _ := tmpl.single(tmpl.get(rule, "ToPort"))
			if proto != "tcp" || from != "443" || to != "443" {
				found = append(found, id+" allows outbound "+proto+" "+from+"-"+to)
			}
		}
	}
	return found, nil
}

// No security group lets anything in, and the bot's only goes out to
// HTTPS.
func TestNothingLetsTrafficIn(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	found, err := ingressIn(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
	tmpl, err := parseTemplate(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	if typ := tmpl.resourceType("BotSecurityGroup"); typ != "AWS::EC2::SecurityGroup" {
		t.Errorf("BotSecurityGroup is %q, want the stack's own security group", typ)
	}
}

// The check finds an ingress rule, an ingress resource and an egress rule
// beyond HTTPS.
func TestIngressCheckFindsIngress(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("cloudformation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const egress = "      SecurityGroupEgress:\n"
	tests := []struct{ name, old, new string }{
		{"an ingress rule", egress, "      SecurityGroupIngress:\n        - IpProtocol: tcp\n          FromPort: 8080\n          ToPort: 8080\n          CidrIp: 10.0.0.0/8\n" + egress},
		{"an ingress resource", "  BotSecurityGroup:\n    Type:", "  Scrape:\n    Type: AWS::EC2::SecurityGroupIngress\n    Properties:\n      GroupId: !Ref BotSecurityGroup\n      IpProtocol: tcp\n      FromPort: 8080\n      ToPort: 8080\n      CidrIp: 10.0.0.0/8\n\n  BotSecurityGroup:\n    Type:"},
		{"egress beyond HTTPS", "          FromPort: 443\n          ToPort: 443\n          CidrIp: 0.0.0.0/0\n", "          FromPort: 0\n          ToPort: 65535\n          CidrIp: 0.0.0.0/0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(string(text), tt.old) != 1 {
				t.Fatalf("the template holds %q %d times, want once", tt.old, strings.Count(string(text), tt.old))
			}
			found, err := ingressIn([]byte(strings.Replace(string(text), tt.old, tt.new, 1)))
			if err != nil || len(found) == 0 {
				t.Errorf("ingressIn = %q, %v; want it found", found, err)
			}
		})
	}
}

// No Lambda function's configuration holds the Slack token (which
// GetFunctionConfiguration would show): each is given the secret's ARN and
// reads the token itself.
func TestLambdasGetTheSecretNotTheToken(t *testing.T) {
	t.Parallel()
	tmpl, err := readTemplate(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"NotifierFunction", "EventsFunction"} {
		vars := tmpl.path("Resources", fn, "Properties", "Environment", "Variables")
		if vars == nil {
			t.Fatalf("%s has no environment", fn)
		}
		if secret, err := tmpl.single(tmpl.get(vars, "SLACK_SECRET_ARN")); err != nil || secret != secretARN {
			t.Errorf("%s: SLACK_SECRET_ARN = %q (%v), want the SlackSecretArn parameter", fn, secret, err)
		}
		for i := 0; i+1 < len(vars.Content); i += 2 {
			name, v := vars.Content[i].Value, vars.Content[i+1].Value
			if name == "SLACK_BOT_TOKEN" || strings.Contains(v, "{{resolve:") || strings.HasPrefix(v, "xox") {
				t.Errorf("%s: %s = %q puts a token in the function's configuration", fn, name, v)
			}
		}
	}
}
