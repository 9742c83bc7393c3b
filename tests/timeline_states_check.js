/* The check test_browser appends to a copy of a profiled program's page: the timeline of events
 * draws where each process's time went and its host samples by their threads' state, in the page's
 * own colours (report.css's g- classes for the bands, the key's swatches for the samples).
 * - a "bands" track per process; its longest band of a solid colour is painted, at its middle, in
 *   its group's colour, and a hover there shows the band's state and "of this stretch";
 * - a running sample and a waiting one are painted in the key's running and waiting colours, and
 *   the key shows both swatches.
 * The answer goes into the root's data-states-check: "ok" or the problems. */
window.addEventListener("load", function () {
    "use strict";
    var root = document.documentElement, bad = [];
    var fig = document.getElementById("tl-events"), src = document.getElementById("tl-data");
    function done() { root.setAttribute("data-states-check", bad.length ? bad.join("; ") : "ok"); }
    if (!fig || !src || !fig.tlTracks || !fig.tlHover) { bad.push("no event timeline on the page"); done(); return; }
    var data = JSON.parse(src.textContent), canvas = fig.querySelector("canvas"), ctx = canvas.getContext("2d");
    var box = canvas.getBoundingClientRect(), dpr = canvas.width / box.width, span = Math.max(1, data.span);
    function colour(cls) {
        var el = document.createElement("span");
        el.className = cls;
        fig.appendChild(el);
        var c = window.getComputedStyle(el).backgroundColor;
        fig.removeChild(el);
        return c;
    }
    var img = ctx.getImageData(0, 0, canvas.width, canvas.height).data; /* read once: each read costs a copy */
    function painted(x, y) {
        var o = 4 * (Math.floor(y * dpr) * canvas.width + Math.floor(x * dpr));
        return "rgb(" + img[o] + ", " + img[o + 1] + ", " + img[o + 2] + ")";
    }
    var row = function (tr, i) { return tr.t.z ? tr.t.z[i] : 0; };

    var bands = fig.tlTracks.filter(function (tr) { return tr.t.k === "bands"; });
    if (!bands.length) bad.push("no track of where the time went");
    bands.forEach(function (tr) {
        var best = -1;
        for (var i = 0; i < tr.n; i++) {
            var solid = colour("g-" + data.groups[tr.t.c[i] - data.group0]) !== "rgba(0, 0, 0, 0)";
            if (solid && (best < 0 || tr.t.d[i] > tr.t.d[best])) best = i;
        }
        if (best < 0) { bad.push(tr.t.l + ": no band of a solid colour"); return; }
        var key = data.groups[tr.t.c[best] - data.group0], x = (tr.s[best] + tr.t.d[best] / 2) / span * box.width;
        var want = colour("g-" + key), got = painted(x, tr.y + 8);
        if (got !== want) bad.push(tr.t.l + ": its " + key + " band is painted " + got + ", g-" + key + " is " + want);
        var head = fig.tlHover(x, tr.y + 8), tip = document.getElementById("tip");
        if (head !== data.names[tr.t.n[best]]) bad.push(tr.t.l + ": hover showed " + head + ", not " + data.names[tr.t.n[best]]);
        else if (tip.textContent.indexOf(" of this stretch") < 0) bad.push(tr.t.l + ": the hover has no share of the stretch");
    });

    /* A sample of the category whose pixel column on its row holds no other category: there it
     * is what is painted. */
    function sample(cat) {
        var hosts = fig.tlTracks.filter(function (tr) { return tr.t.k === "host" && tr.t.c; });
        for (var j = 0; j < hosts.length; j++) {
            var tr = hosts[j], cols = {};
            for (var i = 0; i < tr.n; i++) {
                var k = row(tr, i) + ":" + Math.floor(tr.s[i] / span * box.width);
                cols[k] = cols[k] === undefined || cols[k] === tr.t.c[i] ? tr.t.c[i] : -1;
            }
            for (i = 0; i < tr.n; i++)
                if (tr.t.c[i] === cat && cols[row(tr, i) + ":" + Math.floor(tr.s[i] / span * box.width)] === cat)
                    return { tr: tr, i: i };
        }
        return null;
    }
    [[10, "sw hs", "running"], [11, "sw hsw", "waiting"]].forEach(function (w) {
        var h = sample(w[0]);
        if (!h) { bad.push("no " + w[2] + " host sample drawn alone in its pixel column"); return; }
        var x = Math.floor(h.tr.s[h.i] / span * box.width) + 0.5, y = h.tr.y + row(h.tr, h.i) * 16 + 8;
        var got = painted(x, y), want = colour(w[1]);
        if (got !== want) bad.push("a " + w[2] + " sample of " + h.tr.t.l + " is painted " + got + ", the key's " + want);
        if (!fig.querySelector("figcaption .sw." + w[1].split(" ")[1])) bad.push("the key has no " + w[2] + " swatch");
    });
    done();
});
