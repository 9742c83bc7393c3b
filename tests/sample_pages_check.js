/* The checks test_browser runs over every committed sample's page at once: its wrapper page holds
 * one iframe per sample, all of one width, and loads this script. Once every frame has loaded:
 * no page is wider than its frame, and (with data-overlaps="1" on the wrapper's root) in no chart
 * are two labels drawn over each other, each label's box as the browser laid it out; and each
 * page passes tests/browser_checks.js (loaded beside this as a library). The answer
 * goes into the wrapper's data-check attribute: "ok", or the problems found, "; " between them. */
(function () {
    "use strict";
    /* A chart's labels that overlap by more than a sliver (boxes include the glyphs' ascent and
     * descent, so lines 11 px apart touch): the first such pair per chart. */
    function overlaps(d, name, bad) {
        var svgs = d.querySelectorAll("svg");
        for (var s = 0; s < svgs.length; s++) {
            var texts = svgs[s].querySelectorAll("text"), boxes = [];
            for (var i = 0; i < texts.length; i++) {
                var r = texts[i].getBoundingClientRect(), t = texts[i].textContent.trim();
                if (t && r.width > 0 && r.height > 0) boxes.push({r: r, t: t});
            }
            for (var a = 0; a < boxes.length; a++)
                for (var b = a + 1; b < boxes.length; b++) {
                    var p = boxes[a].r, q = boxes[b].r;
                    var w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
                    var h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
                    if (w > 2 && h > 4) {
                        bad.push(name + " (" + (svgs[s].getAttribute("aria-label") || "a chart") + "): '" + boxes[a].t +
                                 "' over '" + boxes[b].t + "'");
                        a = boxes.length;
                        break;
                    }
                }
        }
    }
    /* Then tests/browser_checks.js's checks (the wrapper loads it as a library) on every frame:
     * sections with content, each reached from the navigation, no placeholder, no text under
     * 9 px. Each answers in its frame's data-check. */
    function page_checks(frames, bad) {
        if (typeof mmprofPageChecks !== "function") { bad.push("tests/browser_checks.js did not load"); return; }
        frames.forEach(function (fr) {
            var d = fr.contentDocument, name = fr.src.replace(/.*\//, "");
            if (!d) return;
            mmprofPageChecks(d, fr.contentWindow);
            var c = d.documentElement.getAttribute("data-check");
            if (c !== "ok") bad.push(name + ": " + (c || "no answer").replace(/\n/g, ", "));
        });
    }
    window.addEventListener("load", function () {
        var bad = [], root = document.documentElement;
        var frames = Array.prototype.slice.call(document.querySelectorAll("iframe"));
        frames.forEach(function (fr) {
            var d = fr.contentDocument, name = fr.src.replace(/.*\//, "");
            if (!d) { bad.push(name + ": not readable"); return; }
            var w = d.documentElement.scrollWidth, limit = fr.clientWidth;
            if (w > limit) bad.push(name + " is " + w + " px wide in " + limit);
            if (root.getAttribute("data-overlaps") === "1") overlaps(d, name, bad);
        });
        page_checks(frames, bad);
        root.setAttribute("data-check", bad.length ? bad.join("; ") : "ok");
    });
})();
