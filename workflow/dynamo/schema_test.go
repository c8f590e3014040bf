package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func TestCreateTableIsIdempotentAndEnablesTTL(t *testing.T) {
	t.Parallel()
	s := newStore(t) // creates the table once
	ctx := t.Context()
	for range 2 {
		if err := CreateTable(ctx, client, s.table); err != nil {
			t.Fatalf("CreateTable on an existing table: %v", err)
		}
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(s.table)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ttl.TimeToLiveDescription; got.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(got.AttributeName) != TTLAttribute {
		t.Errorf("time to live = %s on %q, want ENABLED on %q", got.TimeToLiveStatus, aws.ToString(got.AttributeName), TTLAttribute)
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s.table)})
	if err != nil {
		t.Fatal(err)
	}
	if got := desc.Table.TableStatus; got != types.TableStatusActive {
		t.Errorf("table status = %s, want ACTIVE", got)
	}
}

func TestCreateTableRefusesATableWithoutTheIndex(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	name := fmt.Sprintf("no-index-%d", tableCount.Add(1))
	in := TableSchema(name)
	in.GlobalSecondaryIndexes = nil
	in.AttributeDefinitions = in.AttributeDefinitions[:1]
	if _, err := client.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// t.Context is already cancelled when cleanups run.
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	if err := CreateTable(ctx, client, name); err == nil || !strings.Contains(err.Error(), QueueIndex) {
		t.Errorf("CreateTable on a table without %s = %v, want an error naming it", QueueIndex, err)
	}
}

// TestCloudFormationTableMatchesSchema keeps deploy/cloudformation.yaml and
// TableSchema equal: changing either alone fails it.
func TestCloudFormationTableMatchesSchema(t *testing.T) {
	t.Parallel()
	got := cloudFormationTable(t, "../../deploy/cloudformation.yaml")

	var want map[string]any
	b, err := json.Marshal(TableSchema("ignored"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	want = prune(want).(map[string]any)
	delete(want, "TableName")
	want["TimeToLiveSpecification"] = map[string]any{"AttributeName": TTLAttribute, "Enabled": true}
	// CloudFormation's StreamSpecification has the view type only: a
	// stream is on when it is given.
	want["StreamSpecification"] = map[string]any{"StreamViewType": string(AuditStream().StreamViewType)}

	keys := []string{"AttributeDefinitions", "BillingMode", "GlobalSecondaryIndexes", "KeySchema",
		"LocalSecondaryIndexes", "ProvisionedThroughput", "StreamSpecification", "TimeToLiveSpecification"}
	for k := range want {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if diff := cmp.Diff(normalize(k, want[k]), normalize(k, got[k])); diff != "" {
			t.Errorf("table property %s differs between TableSchema and cloudformation.yaml (-schema +yaml):\n%s", k, diff)
		}
	}
}

// sortProjected returns a copy of an index whose NonKeyAttributes are
// sorted.
func sortProjected(index any) any {
	m, ok := index.(map[string]any)
	if !ok {
		return index
	}
	p, _ := m["Projection"].(map[string]any)
	attrs, ok := p["NonKeyAttributes"].([]any)
	if !ok {
		return index
	}
	sorted := slices.Clone(attrs)
	slices.SortFunc(sorted, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	out := maps.Clone(m)
	out["Projection"] = map[string]any{"ProjectionType": p["ProjectionType"], "NonKeyAttributes": sorted}
	return out
}

// TestIndexesNeverProjectTheToken: every index lists what it projects, and
// the task token is not among it.
func TestIndexesNeverProjectTheToken(t *testing.T) {
	t.Parallel()
	for _, index := range TableSchema("ignored").GlobalSecondaryIndexes {
		p := index.Projection
		if p == nil || p.ProjectionType != types.ProjectionTypeInclude {
			t.Errorf("index %s projects %v, want INCLUDE of the attributes it needs", aws.ToString(index.IndexName), p)
			continue
		}
		if slices.Contains(p.NonKeyAttributes, attrTaskToken) {
			t.Errorf("index %s projects %s", aws.ToString(index.IndexName), attrTaskToken)
		}
	}
}

func TestCreateTableRefusesAnIndexOfAnotherProjection(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	name := fmt.Sprintf("all-projected-%d", tableCount.Add(1))
	in := TableSchema(name)
	for i := range in.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes[i].Projection = &types.Projection{ProjectionType: types.ProjectionTypeAll}
	}
	if _, err := client.CreateTable(ctx, in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	if err := CreateTable(ctx, client, name); err == nil || !strings.Contains(err.Error(), "projection") {
		t.Errorf("CreateTable on a table whose indexes project everything = %v, want an error about the projection", err)
	}
}

// cloudFormationTable returns the Properties of the one AWS::DynamoDB::Table
// in the template.
func cloudFormationTable(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	template, _ := cfnValue(&doc).(map[string]any)
	resources, _ := template["Resources"].(map[string]any)
	var tables []map[string]any
	for _, r := range resources {
		if r, _ := r.(map[string]any); r["Type"] == "AWS::DynamoDB::Table" {
			props, _ := r["Properties"].(map[string]any)
			tables = append(tables, props)
		}
	}
	if len(tables) != 1 {
		t.Fatalf("%s has %d AWS::DynamoDB::Table resources, want 1", path, len(tables))
	}
	return tables[0]
}

// cfnValue turns a YAML node into maps, slices and scalars, with
// CloudFormation short tags in their long form: !Ref x is {"Ref": "x"},
// !GetAtt a.b is {"Fn::GetAtt": ["a", "b"]}, !Sub s is {"Fn::Sub": "s"}.
func cfnValue(n *yaml.Node) any {
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		return cfnValue(n.Content[0])
	case yaml.AliasNode:
		return cfnValue(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = cfnValue(n.Content[i+1])
		}
		v = m
	case yaml.SequenceNode:
		list := []any{}
		for _, c := range n.Content {
			list = append(list, cfnValue(c))
		}
		v = list
	default:
		v = n.Value
		if n.Tag == "!!bool" {
			v = n.Value == "true"
		}
	}
	fn, ok := strings.CutPrefix(n.Tag, "!")
	if !ok || strings.HasPrefix(fn, "!") {
		return v
	}
	if s, ok := v.(string); ok && fn == "GetAtt" {
		v = strings.SplitN(s, ".", 2)
	}
	if fn != "Ref" && fn != "Condition" {
		fn = "Fn::" + fn
	}
	return map[string]any{fn: v}
}

// prune drops nulls, empty strings and empty lists and maps, which the
// SDK's structs marshal for every unset field.
func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e = prune(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, e := range v {
			if e = prune(e); e != nil {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if v == "" {
			return nil
		}
	}
	return v
}

// normalize sorts lists whose order DynamoDB ignores: attribute
// definitions, indexes, and the attributes each index projects.
func normalize(key string, v any) any {
	list, ok := v.([]any)
	if !ok || (key != "AttributeDefinitions" && key != "GlobalSecondaryIndexes") {
		return v
	}
	if key == "GlobalSecondaryIndexes" {
		list = slices.Clone(list)
		for i, index := range list {
			list[i] = sortProjected(index)
		}
	}
	sorted := slices.Clone(list)
	name := func(e any) string {
		m, _ := e.(map[string]any)
		s, _ := m["AttributeName"].(string)
		if s == "" {
			s, _ = m["IndexName"].(string)
		}
		return s
	}
	slices.SortFunc(sorted, func(a, b any) int { return strings.Compare(name(a), name(b)) })
	return sorted
}
