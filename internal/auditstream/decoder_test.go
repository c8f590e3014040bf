package auditstream

import (
	"encoding/json"
	"testing"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Every attribute type a stream image can hold converts to the SDK's.
func TestImagesConvertEveryAttributeType(t *testing.T) {
	t.Parallel()
	image := `{"s":{"S":"x"},"n":{"N":"12.5"},"b":{"B":"AQI="},"t":{"BOOL":true},"z":{"NULL":true},
		"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ=="]},
		"l":{"L":[{"S":"y"},{"N":"3"}]},"m":{"M":{"k":{"L":[{"BOOL":false}]}}}}`
	var in map[string]lambdaevents.DynamoDBAttributeValue
	if err := json.Unmarshal([]byte(image), &in); err != nil {
		t.Fatal(err)
	}
	got, err := toItem(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{
		"s": &types.AttributeValueMemberS{Value: "x"}, "n": &types.AttributeValueMemberN{Value: "12.5"},
		"b": &types.AttributeValueMemberB{Value: []byte{1, 2}}, "t": &types.AttributeValueMemberBOOL{Value: true},
		"z": &types.AttributeValueMemberNULL{Value: true}, "ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}}, "bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "y"}, &types.AttributeValueMemberN{Value: "3"}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"k": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: false}}},
		}},
	}
	opts := cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberB{},
		types.AttributeValueMemberBOOL{}, types.AttributeValueMemberNULL{}, types.AttributeValueMemberSS{}, types.AttributeValueMemberNS{},
		types.AttributeValueMemberBS{}, types.AttributeValueMemberL{}, types.AttributeValueMemberM{})
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("converted image (-want +got):\n%s", diff)
	}
}
