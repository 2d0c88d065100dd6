package metrics

// Submetric is a metric restricted to the samples whose tags contain Tags, as selected by a
// threshold key such as `http_req_duration{status:200}` (docs/k6-compat.md#sub-metric-selectors).
type Submetric struct {
	Name   string // "parent{k:v,k2:v2}", the key thresholds, sinks and summaries use
	Suffix string // "k:v,k2:v2"
	Parent *Metric
	Tags   *Tags
}

// Matches reports whether a sample of the parent metric with these tags counts for the sub-metric.
func (s *Submetric) Matches(t *Tags) bool { return t.Contains(s.Tags) }
