package xdnecho

import (
	"testing"

	"github.com/dop251/goja"

	"github.com/dnecho/dnecho/ozone/echo"
)

// The memo must not hide a change: a mutated field, a new object, or a different Client throw
// option all parse afresh.
func TestRequestMemoSeesChanges(t *testing.T) {
	rt := goja.New()
	obj := rt.NewObject()
	_ = obj.Set("payloadResp", "1KB")
	var m requestMemo
	c, err := m.parse(nil, obj, echo.Request{ReadOnly: true}, false)
	if err != nil || c.req.PayloadResp != 1024 {
		t.Fatalf("first parse: %+v %v", c, err)
	}
	if m.obj != obj {
		t.Fatal("object not remembered")
	}
	_ = obj.Set("payloadResp", "2KB")
	if c, _ = m.parse(nil, obj, echo.Request{ReadOnly: true}, false); c.req.PayloadResp != 2048 {
		t.Errorf("mutated payloadResp not seen: %d", c.req.PayloadResp)
	}
	_ = obj.Set("sleepMs", 5)
	if c, _ = m.parse(nil, obj, echo.Request{ReadOnly: true}, false); c.req.SleepMs != 5 {
		t.Errorf("added sleepMs not seen: %d", c.req.SleepMs)
	}
	if c, _ = m.parse(nil, obj, echo.Request{ReadOnly: true}, true); !c.throw {
		t.Error("a different throw default reused the memo")
	}
	other := rt.NewObject()
	_ = other.Set("payloadReq", "bad size")
	if _, err := m.parse(nil, other, echo.Request{ReadOnly: true}, false); err == nil {
		t.Error("a new object with a bad size was not parsed")
	}
}
