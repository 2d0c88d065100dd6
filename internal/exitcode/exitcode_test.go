package exitcode

import "testing"

// TestCodesAreDistinct: two outcomes sharing a code could not be told apart by a script or CI.
func TestCodesAreDistinct(t *testing.T) {
	codes := map[string]int{
		"OK": OK, "Usage": Usage, "ThresholdsFailed": ThresholdsFailed, "SetupTimeout": SetupTimeout,
		"TeardownTimeout": TeardownTimeout, "GenericTimeout": GenericTimeout, "InvalidConfig": InvalidConfig,
		"ExternalAbort": ExternalAbort, "ScriptException": ScriptException, "ScriptAborted": ScriptAborted,
		"MarkedAsFailed": MarkedAsFailed, "Interrupted": Interrupted, "Failure": Failure,
		"StoppedFromAPI": StoppedFromAPI, "CannotStartAPI": CannotStartAPI, "OutputLoss": OutputLoss,
	}
	seen := map[int]string{}
	for name, c := range codes {
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s are both %d", name, other, c)
		}
		if c < 0 || c > 255 {
			t.Errorf("%s = %d is not a process exit status", name, c)
		}
		seen[c] = name
	}
}
