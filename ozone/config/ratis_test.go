package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRatisClientSettings(t *testing.T) {
	unset, err := fromMap(map[string]string{}).ClientSettings()
	if err != nil || !reflect.DeepEqual(unset.Ratis, RatisClient{}) {
		t.Fatalf("no Ratis keys: %+v, %v; want nothing set", unset.Ratis, err)
	}
	s, err := fromMap(map[string]string{
		KeyRatisRequestTimeout: "30s", KeyRatisMaxOutstanding: "64", KeyRatisWriteTimeout: "70s",
		KeyRatisWatchTimeout: "30000", KeyRatisMultilinear: " 5s, 6 ,250, 2", KeyRatisExpBaseSleep: "1s",
		KeyRatisExpMaxSleep: "5s", KeyRatisExpMaxRetries: "2",
	}).ClientSettings()
	if err != nil {
		t.Fatal(err)
	}
	want := RatisClient{RequestTimeout: 30 * time.Second, MaxOutstanding: 64, WriteTimeout: 70 * time.Second,
		WatchTimeout: 30 * time.Second, Multilinear: []RetryStep{{5 * time.Second, 6}, {250 * time.Millisecond, 2}},
		ExpBaseSleep: time.Second, ExpMaxSleep: 5 * time.Second, ExpMaxRetries: 2}
	if !reflect.DeepEqual(s.Ratis, want) {
		t.Errorf("Ratis = %+v\nwant %+v", s.Ratis, want)
	}
	for key, v := range map[string]string{
		KeyRatisRequestTimeout: "0", KeyRatisWriteTimeout: "soon", KeyRatisMaxOutstanding: "-1",
		KeyRatisMultilinear: "5s, 5, 10s",
	} {
		s, err := fromMap(map[string]string{key: v}).ClientSettings()
		if err != nil || s.Ratis.Err == nil || !strings.Contains(s.Ratis.Err.Error(), key) {
			t.Errorf("%s=%q: err %v, Ratis.Err %v; want only the Ratis settings' error, naming the key", key, v, err, s.Ratis.Err)
		}
	}
}

func TestParseMultilinear(t *testing.T) {
	for _, bad := range []string{"5s", "5s, 0", "0, 5", "x, 5", "5s, five", "5s, 5, , 3"} {
		if _, err := ParseMultilinear(bad); err == nil {
			t.Errorf("ParseMultilinear(%q): no error", bad)
		}
	}
	steps, err := ParseMultilinear("5s, 5, 10s, 5, 15s, 5, 20s, 5, 25s, 5, 60s, 10")
	if err != nil || len(steps) != 6 || steps[5] != (RetryStep{time.Minute, 10}) {
		t.Errorf("Ozone's default: %v, %v", steps, err)
	}
}
