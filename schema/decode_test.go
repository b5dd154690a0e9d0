package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is the reference decodeJSON must agree with.
func stdDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if rest := bytes.Trim(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, errEOF
	}
	return v, nil
}

var decodeCorpus = []string{
	`{"a":[1,-2.5e3,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"],"b":{}}`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"é"`, `0`, `-0`, `01`, `1.`, `1e`, `.5`,
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `[`, `{`, `"abc`, `tru`, `nul`, ` [ ] `, `{"a":1}{}`, `{"a":1,"a":2}`,
	"\"a\x01\"", `"\u12G4"`, `"\u+123"`, `1E+2`, `-`, `[1 2]`, ``, ` `,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, in := range append(decodeCorpus, deep) {
		got, err := decodeJSON([]byte(in))
		want, werr := stdDecode([]byte(in))
		if (err == nil) != (werr == nil) {
			t.Errorf("%.40q: error %v, encoding/json %v", in, err, werr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%.40q: got %#v, encoding/json %#v", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := decodeJSON([]byte(in))
		want, werr := stdDecode([]byte(in))
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, encoding/json %v", in, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", in, got, want)
		}
	})
}
