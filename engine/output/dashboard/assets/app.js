// dnecho web dashboard: draws the run's charts with uPlot from the document the output publishes
// (live: polled from /data; report: embedded in the page).
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("dnecho-config").textContent);
  var palette = ["#2f6fde", "#e8743b", "#19a979", "#ed4a7b", "#945ecf", "#13a4b4", "#bf399e", "#6c8893", "#ee6868", "#525df4"];
  var charts = {};

  function el(id) { return document.getElementById(id); }

  function width(id) { return Math.max(300, el(id).clientWidth - 4); }

  // chart (re)creates a chart when its series change and otherwise only swaps its data.
  function chart(id, names, xs, cols, unit) {
    var key = names.join("\u0000");
    var data = [xs].concat(cols);
    var c = charts[id];
    if (c && c.key === key) { c.plot.setData(data); return; }
    if (c) { c.plot.destroy(); }
    var series = [{}].concat(names.map(function (n, i) {
      return { label: n, stroke: palette[i % palette.length], width: 1.5, spanGaps: true,
        value: function (u, v) { return v == null ? "–" : fmt(v) + (unit ? " " + unit : ""); } };
    }));
    var opts = { width: width(id), height: 220, series: series, scales: { x: { time: true } },
      axes: [{}, { values: function (u, vs) { return vs.map(function (v) { return fmt(v); }); } }], legend: { live: true } };
    charts[id] = { key: key, plot: new uPlot(opts, data, el(id)) };
  }

  function fmt(v) {
    if (v == null || isNaN(v)) { return "–"; }
    var a = Math.abs(v);
    if (a >= 100 || v === Math.round(v)) { return (Math.round(v * 10) / 10).toLocaleString("en"); }
    if (a >= 1) { return v.toFixed(2); }
    return v.toPrecision(3);
  }

  function keysOf(points, field) {
    var seen = {};
    points.forEach(function (p) { Object.keys(p[field] || {}).forEach(function (k) { seen[k] = true; }); });
    return Object.keys(seen).sort();
  }

  function column(points, f) { return points.map(function (p) { var v = f(p); return v == null ? null : v; }); }

  function render(doc) {
    var pts = doc.points || [];
    var xs = pts.map(function (p) { return p.t / 1000; });
    var what = doc.iterations ? "Iterations" : "Echo calls";
    el("rps-title").textContent = what + " per second";
    chart("rps", [doc.iterations ? "iterations/s" : "calls/s"], xs, [column(pts, function (p) { return p.rps; })], "/s");
    var stats = ["p50", "p90", "p95", "p99", "max"];
    chart("lat", stats, xs, stats.map(function (s) { return column(pts, function (p) { return p[s]; }); }), "ms");
    var dns = keysOf(pts, "dn");
    chart("dn", dns.length ? dns : ["(no datanode tag)"], xs,
      (dns.length ? dns : [""]).map(function (k) { return column(pts, function (p) { return p.dn ? p.dn[k] : null; }); }), "ms");
    var res = keysOf(pts, "res");
    chart("res", res.length ? res : ["(no result tag)"], xs,
      (res.length ? res : [""]).map(function (k) { return column(pts, function (p) { return p.res ? (p.res[k] || 0) : null; }); }), "/s");
    chart("vus", ["VUs"], xs, [column(pts, function (p) { return p.vus; })], "");
    chart("thf", ["failing thresholds"], xs, [column(pts, function (p) { return p.thf; })], "");
    thresholds(doc.thresholds || []);
    var total = 0, secs = 0;
    pts.forEach(function (p, i) {
      var d = i === 0 ? 0 : (p.t - pts[i - 1].t) / 1000;
      secs += d;
    });
    if (pts.length) {
      var last = pts[pts.length - 1];
      el("stat-rps").textContent = fmt(last.rps);
      el("stat-p99").textContent = last.p99 == null ? "–" : fmt(last.p99) + " ms";
      el("stat-vus").textContent = last.vus == null ? "–" : fmt(last.vus);
    }
    el("stat-state").textContent = doc.final ? "finished" : "running";
  }

  function thresholds(list) {
    var body = el("th-body");
    body.textContent = "";
    if (!list.length) {
      var tr = body.insertRow();
      tr.insertCell().textContent = "no thresholds";
      return;
    }
    list.forEach(function (t) {
      var tr = body.insertRow();
      var st = tr.insertCell();
      st.textContent = !t.evaluated ? "…" : t.ok ? "✓ pass" : "✗ fail";
      st.className = !t.evaluated ? "pending" : t.ok ? "ok" : "fail";
      tr.insertCell().textContent = t.metric;
      tr.insertCell().textContent = t.source;
      var v = tr.insertCell();
      v.className = "num";
      v.textContent = t.value == null ? "–" : fmt(t.value);
    });
  }

  function poll() {
    fetch("/data", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (doc) {
      render(doc);
      if (!doc.final) { setTimeout(poll, cfg.pollMS); }
    }).catch(function () { el("stat-state").textContent = "finished (page no longer served)"; });
  }

  document.querySelectorAll("nav button").forEach(function (b) {
    b.addEventListener("click", function () {
      document.querySelectorAll("nav button").forEach(function (o) { o.classList.toggle("on", o === b); });
      document.querySelectorAll("section.tab").forEach(function (s) { s.classList.toggle("hidden", s.id !== b.dataset.tab); });
    });
  });

  if (cfg.live) { poll(); } else { render(JSON.parse(el("dnecho-data").textContent)); }
})();
