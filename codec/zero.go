package codec

import "reflect"

// IsZero reports whether v is its type's zero value, as encoding/json's
// omitzero judges it: by v's IsZero method when it has one, else by
// reflect. Generated upcasts (runtime version 3) read an optional field of
// an older shape only when it is not zero, so that a field history leaves
// out stays left out in the newer shape (decision 0173).
func IsZero(v any) bool {
	if z, ok := v.(interface{ IsZero() bool }); ok {
		return z.IsZero()
	}
	return reflect.ValueOf(v).IsZero()
}
