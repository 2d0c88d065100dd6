package ratispb_test

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// unknown names the first message (by full name) in m's tree that holds unknown fields; "" if none.
func unknown(m protoreflect.Message) string {
	if len(m.GetUnknown()) > 0 {
		return string(m.Descriptor().FullName())
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && found == ""; i++ {
				found = unknown(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = unknown(v.Message())
		}
		return found == ""
	})
	return found
}
