package jsonschema

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEnginesAgreeOnRandomSchemas generates schemas from the keywords the
// fast engine implements, and instances likely to probe them, and checks
// that both engines reach the same verdict. Mutation fuzzing rarely writes
// a meaningful schema; this does on every try.
func TestEnginesAgreeOnRandomSchemas(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	g := &schemaGen{r: r}
	compiled, checked := 0, 0
	for range n {
		schema := g.root()
		s, err := Compile(json.RawMessage(schema), nil)
		if err != nil {
			continue
		}
		if s.fast == nil {
			t.Fatalf("fast engine declined %s", schema)
		}
		full, err := compileFull(t, s.raw, false)
		if err != nil {
			t.Fatal(err)
		}
		compiled++
		for range 20 {
			instance := g.value(3)
			fast := s.Validate(json.RawMessage(instance))
			if fast != nil && strings.Contains(fast.Error(), "validation stopped") {
				continue
			}
			ferr := full.Validate([]byte(instance))
			checked++
			if (fast == nil) != (ferr == nil) {
				t.Fatalf("engines disagree\nschema:   %s\ninstance: %s\nfast: %v\nfull: %v", schema, instance, fast, ferr)
			}
		}
	}
	t.Logf("%d schemas compiled, %d verdicts compared", compiled, checked)
}

type schemaGen struct {
	r *rand.Rand
	// draft7 avoids $ref beside other keywords: draft-07 says they are
	// ignored, and the full engine ignores only draft-04's (a bug in it).
	draft7 bool
	// defs is where x and y are: "$defs", or "definitions" (draft-07's).
	defs string
	// anchors says x and y declare the anchors "ax" and "ay" ("$anchor",
	// or "$id": "#ax" in draft-07), which references use half the time.
	anchors bool
}

func (g *schemaGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *schemaGen) root() string {
	g.draft7 = g.r.IntN(4) == 0
	g.anchors = g.r.IntN(3) == 0
	g.defs = "$defs"
	if g.draft7 && (g.anchors || g.r.IntN(2) == 0) {
		// Draft-07 has no $defs: the full engine collects anchors from
		// "definitions" only.
		g.defs = "definitions"
	}
	body := g.schema(3)
	x, y := g.schema(2), g.schema(1)
	if g.anchors {
		x, y = g.anchored("ax", x), g.anchored("ay", y)
	}
	defs := `"` + g.defs + `":{"x":` + x + `,"y":` + y + `}`
	if g.draft7 {
		defs = `"$schema":"http://json-schema.org/draft-07/schema#",` + defs
	}
	if body == "true" || body == "false" || body == "{}" {
		return `{` + defs + `,"allOf":[` + body + `]}`
	}
	return `{` + defs + `,` + body[1:]
}

// anchored declares the anchor name in schema s.
func (g *schemaGen) anchored(name, s string) string {
	decl := `"$anchor":"` + name + `"`
	if g.draft7 {
		decl = `"$id":"#` + name + `"`
	}
	if !strings.HasPrefix(s, "{") || s == "{}" || strings.HasPrefix(s, `{"$ref"`) {
		// A $ref hides "$id" in draft-07.
		return `{` + decl + `,"allOf":[` + s + `]}`
	}
	return `{` + decl + `,` + s[1:]
}

// ref refers to a definition ("x" or "y") or to the root ("").
func (g *schemaGen) ref(def string) string {
	switch {
	case def == "":
		return `"#"`
	case g.anchors && g.r.IntN(2) == 0:
		return `"#a` + def + `"`
	}
	return `"#/` + g.defs + `/` + def + `"`
}

func (g *schemaGen) schema(depth int) string {
	if depth == 0 || g.r.IntN(8) == 0 {
		return g.pick("true", "false", "{}", `{"type":"string"}`, `{"type":"integer"}`, `{"$ref":`+g.ref("y")+`}`)
	}
	var kws []string
	for range 1 + g.r.IntN(3) {
		kws = append(kws, g.keyword(depth-1))
	}
	return "{" + strings.Join(dedupeKeys(kws), ",") + "}"
}

// dedupeKeys keeps the first of keywords with the same name.
func dedupeKeys(kws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, kw := range kws {
		name, _, _ := strings.Cut(kw, ":")
		if !seen[name] {
			seen[name] = true
			out = append(out, kw)
		}
	}
	return out
}

func (g *schemaGen) list(depth, max int) string {
	var subs []string
	for range 1 + g.r.IntN(max) {
		subs = append(subs, g.schema(depth))
	}
	return "[" + strings.Join(subs, ",") + "]"
}

func (g *schemaGen) keyword(d int) string {
	switch g.r.IntN(34) {
	case 0:
		return `"type":` + g.pick(`"null"`, `"boolean"`, `"object"`, `"array"`, `"number"`, `"string"`, `"integer"`, `["string","null"]`, `["integer","boolean"]`)
	case 1:
		return `"enum":[` + g.value(1) + `,` + g.value(1) + `]`
	case 2:
		return `"const":` + g.value(2)
	case 3:
		return `"properties":{"a":` + g.schema(d) + `,"b":` + g.schema(d) + `}`
	case 4:
		return `"required":` + g.pick(`["a"]`, `["a","b"]`, `["c"]`, `[]`)
	case 5:
		return `"additionalProperties":` + g.schema(d)
	case 6:
		return `"patternProperties":{"^a":` + g.schema(d) + `,"b$":` + g.schema(d) + `}`
	case 7:
		return `"propertyNames":` + g.pick(`{"maxLength":1}`, `{"enum":["a","c"]}`, `{"pattern":"^[ab]"}`, `false`)
	case 8:
		return `"minProperties":` + g.pick("0", "1", "2")
	case 9:
		return `"maxProperties":` + g.pick("0", "1", "2")
	case 10:
		return `"dependentRequired":{"a":["b"],"c":[]}`
	case 11:
		return `"dependentSchemas":{"a":` + g.schema(d) + `}`
	case 12:
		return `"items":` + g.schema(d)
	case 13:
		return `"prefixItems":` + g.list(d, 2)
	case 14:
		return `"contains":` + g.schema(d)
	case 15:
		return `"minContains":` + g.pick("0", "1", "2")
	case 16:
		return `"maxContains":` + g.pick("0", "1", "2")
	case 17:
		return `"minItems":` + g.pick("0", "1", "2")
	case 18:
		return `"maxItems":` + g.pick("0", "1", "2")
	case 19:
		return `"uniqueItems":` + g.pick("true", "false")
	case 20:
		return `"minLength":` + g.pick("0", "1", "2")
	case 21:
		return `"maxLength":` + g.pick("0", "1", "2.0")
	case 22:
		return `"pattern":` + g.pick(`"^a"`, `"b"`, `"^.$"`, `"é"`)
	case 23:
		return `"minimum":` + g.pick("0", "1.5", "-1", "2")
	case 24:
		return `"maximum":` + g.pick("0", "1.5", "-1", "2")
	case 25:
		return `"exclusiveMinimum":` + g.pick("0", "1.5", "-1")
	case 26:
		return `"exclusiveMaximum":` + g.pick("0", "1.5", "2")
	case 27:
		return `"multipleOf":` + g.pick("1", "0.5", "2", "0.1", "3")
	case 28:
		return `"allOf":` + g.list(d, 3)
	case 29:
		return `"anyOf":` + g.list(d, 3)
	case 30:
		return `"oneOf":` + g.list(d, 3)
	case 31:
		return `"not":` + g.schema(d)
	case 32:
		return `"if":` + g.schema(d) + `,"then":` + g.schema(d) + `,"else":` + g.schema(d)
	default:
		ref := g.ref(g.pick("x", "y", ""))
		if g.draft7 {
			return `"allOf":[{"$ref":` + ref + `}]`
		}
		return `"$ref":` + ref
	}
}

func (g *schemaGen) value(depth int) string {
	k := g.r.IntN(10)
	if depth == 0 && k >= 8 {
		k = g.r.IntN(8)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return g.pick("true", "false")
	case 2, 3:
		return g.pick("0", "1", "-1", "2", "1.5", "2.0", "3", "0.3", "-0", "1e1", "4.5")
	case 4, 5, 6, 7:
		return g.pick(`""`, `"a"`, `"b"`, `"ab"`, `"ba"`, `"é"`, `"\u0061"`, `"abc"`)
	case 8:
		var items []string
		for range g.r.IntN(4) {
			items = append(items, g.value(depth-1))
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		var members []string
		for _, k := range []string{"a", "b", "c", "ab"} {
			if g.r.IntN(2) == 0 {
				members = append(members, `"`+k+`":`+g.value(depth-1))
			}
		}
		return "{" + strings.Join(members, ",") + "}"
	}
}
