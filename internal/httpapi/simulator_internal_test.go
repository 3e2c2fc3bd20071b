package httpapi

import (
	"encoding/json"
	"net/url"
	"reflect"
	"testing"
)

func TestSimulatorValues(t *testing.T) {
	want := url.Values{"page": {"2"}, "tag": {"a", "b"}, "n": {"3"}}
	for _, tc := range []struct {
		name, raw string
		query     bool
		want      url.Values
		bad       bool
	}{
		{"Object", `{"page": "2", "tag": ["a", "b"], "n": 3}`, false, want, false},
		{"JSONString", `"{\"page\":\"2\",\"tag\":[\"a\",\"b\"],\"n\":3}"`, false, want, false},
		{"QueryString", `"?page=2&tag=a&tag=b&n=3"`, true, want, false},
		{"QueryStringWhereNone", `"page=2"`, false, nil, true},
		{"Empty", `""`, true, nil, false},
		{"EmptyObjectString", `"{}"`, true, url.Values{}, false},
		{"Null", `null`, false, nil, false},
		{"Missing", ``, false, nil, false},
		{"Array", `["a"]`, false, nil, true},
		{"BadJSONString", `"{nope"`, true, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := simulatorValues(json.RawMessage(tc.raw), "f", tc.query)
			if (err != nil) != tc.bad || !tc.bad && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, %v, want %v (error %v)", got, err, tc.want, tc.bad)
			}
		})
	}
}

// FuzzSimulatorValues: an object and the JSON string of it read alike, and
// nothing panics.
func FuzzSimulatorValues(f *testing.F) {
	for _, s := range []string{`{"a":"1"}`, `{"a":["1",2,null,{"b":true}]}`, `"a=1&b"`, `{}`, `[]`, `"`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		direct, derr := simulatorValues(json.RawMessage(raw), "f", true)
		var obj map[string]any
		if json.Unmarshal([]byte(raw), &obj) != nil || obj == nil {
			return
		}
		s, _ := json.Marshal(raw)
		viaString, serr := simulatorValues(s, "f", false)
		if derr != nil || serr != nil || !reflect.DeepEqual(direct, viaString) {
			t.Fatalf("%s: object %v, %v; as a string %v, %v", raw, direct, derr, viaString, serr)
		}
	})
}
