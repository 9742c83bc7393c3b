/* Checks the browser test appends to a copy of a report (test_browser.c). What the page shows:
 * every section has content of its own (more than its heading, its lede and a quiet line: a
 * section that would only say it has nothing to show is not on the page), every link of the
 * navigation leads to such a section and every section has its link, and the page's text names no
 * placeholder for a fact the source did not record ("?", "unknown", "0 MHz", "0 threads",
 * "runtime 0.0"). Its layout: every link of the navigation can be reached (on the screen, or by
 * scrolling the navigation sideways), no visible text is drawn smaller than 9 CSS pixels, SVG
 * text counted at the size its chart is drawn, and the page is no wider than its window. The answer goes into the root element's data-check
 * attribute: "ok", or the problems found, one per line. */
/* As a function of the page's document and window, so that a wrapper page of frames can run it
 * over each frame (a report's Content-Security-Policy admits no script injected into it): the
 * wrapper sets window.mmprofChecksLibrary before loading this file. */
function mmprofPageChecks(document, window) {
    "use strict";
    var getComputedStyle = window.getComputedStyle.bind(window);
    var problems = [];
    /* A section's content: any child but its heading, its lede and quiet lines. */
    function has_content(section) {
        for (var c = section.firstElementChild; c; c = c.nextElementSibling) {
            if (/^H[1-6]$/.test(c.tagName) || c.classList.contains("lede") || c.classList.contains("quiet")) continue;
            if (c.textContent.trim() || c.querySelector("svg, table")) return true;
        }
        return false;
    }
    var sections = document.querySelectorAll("main > section");
    if (sections.length === 0) problems.push("no section");
    for (var s = 0; s < sections.length; s++) {
        if (!has_content(sections[s])) problems.push("section " + sections[s].id + " has nothing to show");
        if (!document.querySelector("nav.toc a[href='#" + sections[s].id + "']"))
            problems.push("section " + sections[s].id + " has no navigation entry");
    }
    /* The text a reader sees, the folded run details included (printing opens them). */
    function text_of(e) { /* a script's text is not shown: the timeline's data is in one */
        if (!e) return "";
        var copy = e.cloneNode(true), scripts = copy.querySelectorAll("script");
        for (var k = 0; k < scripts.length; k++) scripts[k].parentNode.removeChild(scripts[k]);
        return copy.textContent;
    }
    var shown = [document.querySelector("header.run"), document.querySelector("main"),
                 document.querySelector("footer")].map(text_of).join("\n");
    [/\?/, /\bunknown\b/, /(^|[^\d.])0 MHz/, /(^|[^\d.])0 threads/, /runtime 0\.0\b/].forEach(function (p) {
        var m = p.exec(shown);
        if (m) problems.push("the page shows " + p + ": ..." + shown.slice(Math.max(0, m.index - 40), m.index + 20) + "...");
    });
    var nav = document.querySelector("nav.toc");
    var links = nav ? nav.querySelectorAll("a") : [];
    if (!nav || links.length === 0) problems.push("no navigation");
    var scrolls = nav && /auto|scroll/.test(getComputedStyle(nav).overflowX);
    for (var i = 0; i < links.length; i++) {
        var a = links[i], r = a.getBoundingClientRect(), target = document.querySelector(a.getAttribute("href"));
        if (!target) problems.push("link " + a.textContent + " leads nowhere");
        else if (target.tagName !== "SECTION" || !has_content(target))
            problems.push("link " + a.textContent + " leads to no section with content");
        if (r.width === 0 || r.height === 0) problems.push("link " + a.textContent + " not shown");
        var right = a.offsetLeft + a.offsetWidth;
        if (right > nav.clientWidth + 1 && !scrolls) problems.push("link " + a.textContent + " cut off");
    }
    function visible(el) {
        var r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        for (var e = el; e && e.nodeType === 1; e = e.parentNode)
            if (getComputedStyle(e).display === "none" || getComputedStyle(e).visibility === "hidden") return false;
        return true;
    }
    var small = {};
    var all = document.body.querySelectorAll("*");
    for (var j = 0; j < all.length; j++) {
        var el = all[j], own = "";
        for (var c = el.firstChild; c; c = c.nextSibling)
            if (c.nodeType === 3) own += c.nodeValue;
        if (!own.trim() || el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "title") continue;
        var size = parseFloat(getComputedStyle(el).fontSize);
        var svg = el.ownerSVGElement;
        if (svg) {
            var vb = svg.viewBox.baseVal;
            if (vb && vb.width > 0) size *= svg.getBoundingClientRect().width / vb.width;
        }
        if (size < 9 && visible(el)) {
            var key = (svg ? "svg " : "") + el.tagName.toLowerCase() + "." + (el.getAttribute("class") || "");
            small[key] = Math.min(small[key] || 99, Math.round(size * 10) / 10);
        }
    }
    Object.keys(small).forEach(function (k) { problems.push("text under 9 px: " + k + " at " + small[k] + " px"); });
    /* No wider than the window it is read in (a chart scrolls in its own box, the page does not). */
    var wide = document.documentElement.scrollWidth;
    if (wide > window.innerWidth + 1) problems.push("the page is " + wide + " px wide in a " + window.innerWidth + " px window");
    document.documentElement.setAttribute("data-check", problems.length ? problems.join("\n") : "ok");
}
if (!window.mmprofChecksLibrary) mmprofPageChecks(document, window);
