package prom

import "github.com/prometheus/client_golang/prometheus"

// WatchAnswers adds the verification answers the API holds (held) and their bound (limit) as
// seald_verification_answers_held and seald_verification_answers_limit, read at each scrape: the cache fills
// to its bound and then stops, which a memory check tells from growth by these two (issue 45). Call it once.
func (m *Metrics) WatchAnswers(held func() int, limit int) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "seald_verification_answers_held",
			Help: "Encoded verification answers held in memory by this instance (bounded by seald_verification_answers_limit).",
		}, func() float64 { return float64(held()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "seald_verification_answers_limit",
			Help: "Most encoded verification answers this instance holds; past it the held answers are dropped and filled again.",
		}, func() float64 { return float64(limit) }),
	)
}
