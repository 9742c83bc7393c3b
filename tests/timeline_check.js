/* The check test_browser appends to a copy of a profiled program's committed page, after a script
 * setting window.mmprofExpected: every kernel, copy and memset of the run file, as the test read
 * them from its JSON ({l: the stream's track label, c: category as html_events.c numbers them,
 * n: the name shown, s: start in ns from the page's zero, d: duration in ns, i: the detail line,
 * b: bytes and GB/s as the registry formats them, or ""}). On the page's timeline:
 * - each stream track holds as many events of each category as the JSON has;
 * - each event, zoomed to with the mouse wheel (dispatched on the canvas, about the event) and
 *   hovered at its middle, shows its name, its start and duration (within the precision shown),
 *   its detail (grid and block, copy direction and memory kinds) and its bytes and GB/s.
 * The answer goes into the root's data-tl-check: "ok N" (N events hovered) or the problems. */
window.addEventListener("load", function () {
    "use strict";
    var root = document.documentElement, bad = [], want = window.mmprofExpected || [];
    var fig = document.getElementById("tl-events"), canvas = fig && fig.querySelector("canvas");
    var tip = document.getElementById("tip");
    function done() { root.setAttribute("data-tl-check", bad.length ? bad.slice(0, 12).join("\n") : "ok " + want.length); }
    if (!fig || !fig.tlTracks || !fig.tlView || !canvas || !tip) { bad.push("no event timeline on the page"); done(); return; }
    var NAMES = ["kernel", "host to device", "device to host", "device to device", "other copy", "memset"];

    /* Counts per stream track and category: the page's against the JSON's. */
    var tracks = {}, counts = {};
    fig.tlTracks.forEach(function (tr) {
        if (tr.t.k !== "stream") return;
        tracks[tr.t.l] = tr;
        for (var i = 0; i < tr.n; i++) counts[tr.t.l + ": " + NAMES[tr.t.c[i]]] = (counts[tr.t.l + ": " + NAMES[tr.t.c[i]]] || 0) + 1;
    });
    var expected = {};
    want.forEach(function (e) { expected[e.l + ": " + NAMES[e.c]] = (expected[e.l + ": " + NAMES[e.c]] || 0) + 1; });
    Object.keys(expected).concat(Object.keys(counts)).forEach(function (k) {
        if (counts[k] !== expected[k]) bad.push(k + ": " + (counts[k] || 0) + " on the page, " + (expected[k] || 0) + " in the JSON");
    });

    /* "12.345 ms", "1.23 \u00b5s", "850 ns", "0": ns, and half its last digit (what rounding hides). */
    var UNIT = { s: 1e9, ms: 1e6, "\u00b5s": 1e3, ns: 1 };
    function parseTime(text) {
        var m = /^(-?\d+(?:\.(\d+))?)(?: (s|ms|\u00b5s|ns))?$/.exec(text.trim());
        if (!m || (!m[3] && m[1] !== "0")) return null;
        var unit = m[3] ? UNIT[m[3]] : 1, dec = m[2] ? m[2].length : 0;
        return { ns: Number(m[1]) * unit, slack: 0.5 * unit * Math.pow(10, -dec) + 0.5 };
    }
    function near(text, ns, what, e) {
        var t = parseTime(text);
        if (!t) bad.push(e.n + " at " + e.s + " ns: " + what + " reads '" + text + "'");
        else if (Math.abs(t.ns - ns) > t.slack) bad.push(e.n + " at " + e.s + " ns: " + what + " " + text + ", the JSON's " + ns + " ns");
    }

    var all = fig.querySelector("button[data-tl='all']"), box = canvas.getBoundingClientRect();
    want.forEach(function (e) {
        var tr = tracks[e.l];
        if (!tr) return; /* counted above */
        all.click();
        var mid = e.s + e.d / 2, v;
        /* Zoom about the event until it is 40 px wide (or the view is at its narrowest, 1 us). */
        for (var k = 0; k < 80; k++) {
            v = fig.tlView();
            var span = v[1] - v[0];
            if (e.d / span * box.width >= 40 || span <= 1000.5) break;
            canvas.dispatchEvent(new WheelEvent("wheel", { deltaY: -500, clientX: box.left + (mid - v[0]) / span * box.width,
                                                         clientY: box.top + tr.y + 8, bubbles: true, cancelable: true }));
        }
        v = fig.tlView();
        canvas.dispatchEvent(new PointerEvent("pointermove", { clientX: box.left + (mid - v[0]) / (v[1] - v[0]) * box.width,
                                                             clientY: box.top + tr.y + 8, bubbles: true }));
        var head = tip.querySelector("b");
        if (tip.hidden || !head) { bad.push(e.n + " at " + e.s + " ns: no tip on hover"); return; }
        var lines = tip.textContent.slice(head.textContent.length).split("\n").filter(function (x) { return x; });
        if (head.textContent !== e.n) { bad.push("hover at " + e.s + " ns showed " + head.textContent + ", the JSON's " + e.n); return; }
        var when = /^(.*) from the start, (.*)$/.exec(lines[0] || "");
        if (!when) { bad.push(e.n + " at " + e.s + " ns: no start and duration in '" + lines[0] + "'"); return; }
        near(when[1], e.s, "start", e);
        near(when[2], e.d, "duration", e);
        /* The call site that may follow ("; launched from ...") is the host tests' to check. */
        var detail = (lines[1] || "").split("; launched from ")[0];
        if (detail !== e.i) bad.push(e.n + " at " + e.s + " ns: '" + lines[1] + "', the JSON's '" + e.i + "'");
        if (e.b && lines[2] !== e.b) bad.push(e.n + " at " + e.s + " ns: '" + lines[2] + "', the JSON's '" + e.b + "'");
        if (lines[lines.length - 1] !== e.l) bad.push(e.n + " at " + e.s + " ns: on '" + lines[lines.length - 1] + "'");
    });
    done();
});
