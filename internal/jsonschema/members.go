package jsonschema

// EachMember calls fn with the key and the raw value of each member of
// the JSON object obj, in order, until fn returns false. key is the raw
// key between its quotes and escaped tells whether it holds escapes. obj
// must be well-formed JSON (the strict decoder or Validate has seen it);
// EachMember reports false if it is not an object, and true otherwise,
// even when fn stopped early.
func EachMember(obj []byte, fn func(key []byte, escaped bool, value []byte) bool) bool {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipWS(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		end, escaped := skipString(obj, i)
		key := obj[i+1 : max(i+1, end-1)]
		i = skipWS(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipWS(obj, i+1)
		if i >= len(obj) {
			return false
		}
		vend := skipValue(obj, i)
		if !fn(key, escaped, obj[i:vend]) {
			return true
		}
		i = skipWS(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
	return true
}
