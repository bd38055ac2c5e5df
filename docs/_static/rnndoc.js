// The rnndoc book's page helpers (docs/_static/rnndoc.js; styles in rnndoc.css).
// 1. On a narrow screen, a table of text (the notation page, the cheat sheet: one of its
//    columns holds sentences) wider than the text column is stacked: one row after the
//    other, each cell on its own line under its column's name, the head cell's own HTML, math
//    included (rnndoc-stacked). A table of numbers keeps its rows and columns. A table that is
//    still too wide, or too wide on a wider screen, scrolls in its own box
//    (rnndoc-scroll-table).
// 2. On a phone, a display equation a little too wide for its box is set smaller to fit.
//    One still wider (or such a table, or a code block) scrolls inside its box, which then
//    shows that it does: its clipped edges fade out (rnndoc-scrolls, and -at-start/-at-end
//    when it is scrolled to an end); above a table or a code block that scrolls, a line says
//    so in words.
// 3. A chapter's figure opens at full size, alone, on a tap or a click: each figure image is
//    wrapped in a link to its own image file (on the same site).
// 0. The helpers' own words in the page's language (the translated editions, <html lang>);
//    English where a language has none.
window.rnndocText = (function () {
  "use strict";
  var WORDS = {
    "zh-TW": {
      "Wider than the screen: swipe the table sideways for more columns \u2192": "比螢幕寬：左右滑動表格以查看更多欄位 \u2192",
      "Longer lines than the screen: swipe the code sideways to read them \u2192": "程式碼比螢幕寬：左右滑動以閱讀整行 \u2192",
      "Open the figure at full size": "以原尺寸開啟這張圖",
      "Copy code": "複製程式碼",
      "hidden content": "隱藏的內容",
      "Show %s": "展開「%s」",
      "Hide %s": "收合「%s」"
    }
  };
  var words = WORDS[document.documentElement.lang] || {};
  return function (english, value) {
    var text = words[english] || english;
    return value === undefined ? text : text.replace("%s", function () { return value; });
  };
})();

(function () {
  "use strict";
  var NARROW = 700; // CSS px: below this width, wide tables are stacked

  function labelCells(table) {
    if (table.dataset.rnndocLabelled) { return; }
    table.dataset.rnndocLabelled = "1";
    var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"));
    table.querySelectorAll("tbody tr").forEach(function (row) {
      Array.prototype.forEach.call(row.children, function (cell, index) {
        cell.classList.toggle("rnndoc-empty", cell.textContent.trim() === "");
        var head = heads[index];
        if (!head || head.textContent.trim() === "") { return; }
        cell.setAttribute("data-label", head.textContent.trim());
        // the label is a copy of the head cell's HTML, so that its math stays math
        var label = document.createElement("span");
        label.className = "rnndoc-label";
        label.setAttribute("aria-hidden", "true");
        Array.prototype.forEach.call(head.childNodes, function (node) {
          label.appendChild(node.cloneNode(true));
        });
        // the copy is for the eye only (the cell's column is its header for a screen
        // reader): nothing in it may take the focus (MathJax puts every equation in the tab
        // order), and inert keeps it out of reach (axe-core: aria-hidden-focus)
        label.inert = true;
        label.querySelectorAll("[tabindex], a[href], button").forEach(function (el) {
          el.setAttribute("tabindex", "-1");
        });
        cell.insertBefore(label, cell.firstChild);
      });
    });
  }

  function words(cell) { // words of prose in a cell, its math left out
    var copy = cell.cloneNode(true);
    copy.querySelectorAll("mjx-container, .rnndoc-label").forEach(function (el) { el.remove(); });
    return (copy.textContent.match(/[A-Za-z]{2,}/g) || []).length;
  }

  function isText(table) { // some column's typical cell is a phrase of 4 words or more
    var counts = [];
    table.querySelectorAll("tbody tr").forEach(function (row) {
      Array.prototype.forEach.call(row.children, function (cell, index) {
        (counts[index] = counts[index] || []).push(words(cell));
      });
    });
    return counts.some(function (column) {
      var sorted = column.slice().sort(function (a, b) { return a - b; });
      return sorted[Math.floor(sorted.length / 2)] >= 4; // the median cell
    });
  }

  function tooWide(table) { // wider than its room, or its content wider than itself
    return table.getBoundingClientRect().width > table.parentElement.clientWidth + 1
      || table.scrollWidth > table.clientWidth + 1;
  }

  function fitTables() {
    // the layout viewport: a phone zooms out over wide content, which widens innerWidth
    var viewport = document.documentElement.clientWidth;
    document.querySelectorAll(".rnndoc-scroll-hint").forEach(function (hint) { hint.remove(); });
    document.querySelectorAll("article.bd-article table").forEach(function (table) {
      table.classList.remove("rnndoc-stacked", "rnndoc-scroll-table");
      if (!tooWide(table)) { return; }
      if (viewport < NARROW && isText(table)) {
        labelCells(table);
        table.classList.add("rnndoc-stacked");
      }
      if (tooWide(table)) { table.classList.add("rnndoc-scroll-table"); } // scrolls, with the cue
    });
  }

  function markOne(box) {
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("rnndoc-scrolls", scrolls);
    // a box that scrolls can be scrolled from the keyboard: it takes the focus (WCAG 2.1.1;
    // axe-core: scrollable-region-focusable). MathJax's equations are focusable already.
    if (box.tagName !== "MJX-CONTAINER") {
      if (scrolls) { box.setAttribute("tabindex", "0"); } else { box.removeAttribute("tabindex"); }
    }
    // a table or a code block that scrolls says so in words above it: its faded edge alone
    // reads as cut off (a code block's line goes above its highlight box, copy button and all)
    var anchor = box.tagName === "TABLE" ? box : (box.tagName === "PRE" ? box.closest("div.highlight") : null);
    if (anchor) {
      var hint = anchor.previousElementSibling;
      var has = hint && hint.classList.contains("rnndoc-scroll-hint");
      if (scrolls && !has) {
        hint = document.createElement("p");
        hint.className = "rnndoc-scroll-hint";
        hint.setAttribute("aria-hidden", "true");
        hint.textContent = rnndocText(box.tagName === "TABLE"
          ? "Wider than the screen: swipe the table sideways for more columns \u2192"
          : "Longer lines than the screen: swipe the code sideways to read them \u2192");
        anchor.parentNode.insertBefore(hint, anchor);
      } else if (!scrolls && has) {
        hint.remove();
      }
    }
    box.classList.toggle("rnndoc-scrolls-at-start", scrolls && box.scrollLeft <= 1);
    box.classList.toggle("rnndoc-scrolls-at-end",
      scrolls && box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
  }

  var MIN_SCALE = 0.85; // on a phone, an equation up to 15 % too wide is set smaller to fit

  function shrinkToFit(box) {
    if (box.dataset.rnndocSize === undefined) { box.dataset.rnndocSize = box.style.fontSize; }
    box.style.fontSize = box.dataset.rnndocSize; // MathJax's own size, then measure
    if (document.documentElement.clientWidth >= NARROW || box.scrollWidth <= box.clientWidth + 1) {
      return;
    }
    var ratio = box.clientWidth / box.scrollWidth;
    if (ratio >= MIN_SCALE) {
      var size = parseFloat(box.dataset.rnndocSize) || 100; // MathJax sizes in %
      box.style.fontSize = (size * ratio * 0.98).toFixed(1) + "%";
    }
  }

  function markScrollers() {
    document.querySelectorAll('article.bd-article mjx-container[display="true"]').forEach(shrinkToFit);
    var boxes = 'article.bd-article mjx-container[display="true"], table.rnndoc-scroll-table,'
      + " article.bd-article div.highlight pre";
    document.querySelectorAll(boxes).forEach(function (box) {
      markOne(box);
      if (!box.dataset.rnndocWatched) {
        box.dataset.rnndocWatched = "1";
        box.addEventListener("scroll", function () { markOne(box); }, { passive: true });
      }
    });
  }

  function linkFigures() {
    var images = "article.bd-article figure img, article.bd-article .cell_output img";
    document.querySelectorAll(images).forEach(function (img) {
      if (img.closest("a")) { return; }
      var link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "rnndoc-figure-link";
      link.title = rnndocText("Open the figure at full size");
      img.parentNode.insertBefore(link, img);
      link.appendChild(img);
    });
  }

  // 4. MathJax 3.2.2 loses every equation when its explorer (speech, and walking through an
  //    equation with the arrow keys) is switched on from its menu, which loads the components
  //    then (https://github.com/mathjax/MathJax/issues/3124). Switched on at page load it
  //    works (the menu keeps the reader's choice in localStorage): the page is loaded again.
  function reloadOnExplorer() {
    var doc = window.MathJax && MathJax.startup && MathJax.startup.document;
    var pool = doc && doc.menu && doc.menu.menu && doc.menu.menu.pool;
    var explorer = pool && pool.lookup && pool.lookup("explorer");
    if (!explorer || explorer.rnndocWatched) { return; }
    explorer.rnndocWatched = true;
    var was = explorer.getValue();
    explorer.registerCallback(function () {
      var now = explorer.getValue();
      if (now && !was) { setTimeout(function () { window.location.reload(); }, 0); }
      was = now;
    });
  }

  function update() {
    linkFigures();
    fitTables();
    markScrollers();
    document.documentElement.dataset.rnndocFitted = "1"; // the browser check waits for it
  }

  function start() {
    var typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(update).then(reloadOnExplorer);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(update, 150);
    });
    // a folded box (a section's Checks, a solution) lays its content out only once it is
    // opened: its code and equations are marked again then, after the opening transition
    document.addEventListener("click", function (event) {
      var target = event.target;
      if (target.closest && target.closest("button.toggle-button, .admonition-title, summary")) {
        delete document.documentElement.dataset.rnndocFitted; // set again by update()
        clearTimeout(timer);
        timer = setTimeout(update, 400);
      }
    });
  }

  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();

// --- nbfix (issue 18): the keyboard and the names of buttons ---------------------------------
// 5. MathJax puts every formula in the tab order (its menu opens there): a chapter's inline
//    formulas made most of its Tab stops. A display equation stays a Tab stop (its menu, the
//    explorer and speech, opens with Enter; rnndoc.css draws its focus ring); an inline
//    formula leaves the tab order (tabindex -1: still focusable by a click, and still read by
//    a screen reader from MathJax's assistive MathML, which is left as it is). MathJax sets
//    tabindex again when it renders anew (a menu setting changed): watched.
// 6. Buttons named for what they do: sphinx-copybutton's (a tooltip only) "Copy code";
//    sphinx-togglebutton's ("Toggle hidden content" on every one) "Show <its box's title>",
//    "Hide ..." once open, with aria-expanded.
(function () {
  "use strict";
  var INLINE = 'mjx-container:not([display="true"])';

  function untab(root) {
    var boxes = root.matches && root.matches(INLINE) ? [root] : [];
    boxes = boxes.concat(Array.prototype.slice.call(root.querySelectorAll ? root.querySelectorAll(INLINE) : []));
    boxes.forEach(function (box) {
      if (box.getAttribute("tabindex") !== "-1") { box.setAttribute("tabindex", "-1"); }
    });
  }

  function watchMath() {
    untab(document);
    new MutationObserver(function (records) {
      records.forEach(function (record) {
        if (record.type === "attributes") { untab(record.target); }
        record.addedNodes.forEach(function (node) { if (node.nodeType === 1) { untab(node); } });
      });
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["tabindex"] });
  }

  function title(button) {
    var head = button.closest(".admonition-title") || button.parentElement;
    var copy = head.cloneNode(true);
    copy.querySelectorAll("button, mjx-assistive-mml").forEach(function (el) { el.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim().replace(/^Solution\b/, "solution");
  }

  function nameToggle(button) {
    var hidden = button.classList.contains("toggle-button-hidden");
    button.setAttribute("aria-label", rnndocText(hidden ? "Show %s" : "Hide %s", button.dataset.rnndocTitle));
    button.setAttribute("aria-expanded", hidden ? "false" : "true");
  }

  function nameButtons() {
    document.querySelectorAll("button.copybtn").forEach(function (button) {
      button.setAttribute("aria-label", rnndocText("Copy code"));
    });
    document.querySelectorAll("button.toggle-button").forEach(function (button) {
      if (button.dataset.rnndocTitle === undefined) {
        button.dataset.rnndocTitle = title(button) || rnndocText("hidden content");
        var rename = function () { nameToggle(button); }; // idempotent: the title's click too
        button.addEventListener("click", rename);
        if (button.parentElement) { button.parentElement.addEventListener("click", rename); }
      }
      nameToggle(button);
    });
  }

  function start() {
    nameButtons();
    var typeset = window.MathJax && MathJax.startup && MathJax.startup.promise;
    (typeset || Promise.resolve()).then(watchMath);
  }

  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
