/* The checks test_browser runs over every sample's page at once: its wrapper page holds one iframe
 * per sample, all of one width, and loads this script. Once every frame has loaded: no page is
 * wider than its frame, and (with data-overlaps="1" on the wrapper's root) in no chart are two
 * labels drawn over each other, each label's box as the browser laid it out; each page passes
 * tests/browser_checks.js (loaded beside this as a library); and, with data-axe on the wrapper's
 * root naming axe-core's file, axe-core finds no violation of WCAG 2.x A and AA or of its best
 * practices in any page. The answer goes into the wrapper's data-check attribute: "ok", or the
 * problems found, "; " between them. */
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
    /* Colour contrast is axe-core's costliest rule by far (a minute for the --devices page alone,
     * which draws 5,000 chart labels): it is run on one element per look, the first text of each
     * distinct colour, size, weight and stack of backgrounds and opacities behind it, of all the
     * pages (the look gives the contrast ratio; the pages share one style sheet). Those elements
     * are marked data-axe-look for the rule's selector; a page with no new look skips the rule. */
    function mark_looks(d, w, seen) {
        var behind = new Map(); /* an element's stack of backgrounds, its own first */
        function stack(e) {
            if (!e || e.nodeType !== 1) return "";
            var got = behind.get(e);
            if (got === undefined) {
                var es = w.getComputedStyle(e);
                got = es.backgroundColor + " " + es.backgroundImage + " " + es.opacity + " " + es.mixBlendMode + "|" +
                      stack(e.parentElement);
                behind.set(e, got);
            }
            return got;
        }
        var all = d.body.querySelectorAll("*"), n = 0;
        for (var j = 0; j < all.length; j++) {
            var el = all[j], text = false;
            for (var c = el.firstChild; c && !text; c = c.nextSibling) text = c.nodeType === 3 && c.nodeValue.trim() !== "";
            if (!text) continue;
            var cs = w.getComputedStyle(el);
            var key = [el.namespaceURI, cs.color, cs.fill, cs.fontSize, cs.fontWeight, cs.textShadow, stack(el)].join("|");
            if (!seen[key]) { seen[key] = true; el.setAttribute("data-axe-look", ""); n++; }
        }
        return n;
    }
    /* The rules run: contrast; names of images, controls, links, frames and the document;
     * landmarks (all content inside one, one main, a way past the navigation); and the language,
     * ARIA and structure rules a report's markup could break. Not every rule of WCAG A and AA:
     * those that look for forms, video and the like cost as much as these and find nothing here. */
    var RULES = ["color-contrast",
                 "image-alt", "svg-img-alt", "role-img-alt", "object-alt", "area-alt", "input-image-alt",
                 "button-name", "link-name", "input-button-name", "summary-name", "frame-title", "document-title",
                 "label", "select-name", "aria-command-name", "aria-input-field-name", "aria-toggle-field-name",
                 "aria-tooltip-name", "aria-meter-name", "aria-progressbar-name", "aria-dialog-name",
                 "region", "bypass", "landmark-one-main", "landmark-unique", "landmark-main-is-top-level",
                 "landmark-no-duplicate-main", "landmark-no-duplicate-banner", "landmark-no-duplicate-contentinfo",
                 "landmark-banner-is-top-level", "landmark-contentinfo-is-top-level",
                 "html-has-lang", "html-lang-valid", "aria-valid-attr", "aria-valid-attr-value", "aria-roles",
                 "aria-required-attr", "aria-hidden-focus", "duplicate-id-aria", "list", "listitem",
                 "heading-order", "empty-heading", "th-has-data-cells", "td-headers-attr", "meta-viewport",
                 "scrollable-region-focusable", "nested-interactive", "tabindex"];
    /* axe-core in each frame in turn (a frame's policy admits an inline script, so its text goes in
     * as one), then done(). */
    function axe_checks(frames, bad, done) {
        var src;
        try {
            var x = new XMLHttpRequest();
            x.open("GET", document.documentElement.getAttribute("data-axe"), false);
            x.send();
            src = x.responseText;
        } catch (e) { src = ""; }
        if (!src) { bad.push("axe-core could not be read"); done(); return; }
        var k = 0, seen = {};
        (function next() {
            if (k === frames.length) { done(); return; }
            var fr = frames[k++], d = fr.contentDocument, w = fr.contentWindow, name = fr.src.replace(/.*\//, "");
            if (!d) { next(); return; }
            var s = d.createElement("script");
            s.textContent = src;
            d.head.appendChild(s);
            if (!w.axe) { bad.push(name + ": axe-core did not load"); next(); return; }
            var looks = mark_looks(d, w, seen);
            w.axe.configure({ rules: [{ id: "color-contrast", selector: "[data-axe-look]" }] });
            var rules = RULES.filter(function (id) { return id !== "color-contrast" || looks > 0; });
            w.axe.run(d, { runOnly: { type: "rule", values: rules }, resultTypes: ["violations"] }).then(function (r) {
                r.violations.forEach(function (v) {
                    bad.push(name + ": axe-core " + v.id + " (" + v.help + ") at " + v.nodes.length + " place(s): " +
                             v.nodes.slice(0, 4).map(function (n) { return n.target.join(" "); }).join(", "));
                });
                next();
            }, function (e) { bad.push(name + ": axe-core failed: " + e); next(); });
        })();
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
        function answer() { root.setAttribute("data-check", bad.length ? bad.join("; ") : "ok"); }
        if (root.getAttribute("data-axe")) axe_checks(frames, bad, answer);
        else answer();
    });
})();
