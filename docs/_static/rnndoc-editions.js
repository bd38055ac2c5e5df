/* The edition switcher (docs/_templates/rnndoc-edition.html).
   - It opens the other edition at the place the reader is reading: the address's #fragment
     while what it names is on screen, else the innermost section whose top the reader has
     scrolled past (both editions' sections have the same ids: they come from the English
     source and its labels). A fragment the other edition lacks opens that page at its top.
     The query goes along (search.html?q=...). The link's address is brought up to date just
     before it is used, so that a middle click or "open in new tab" gets it too.
   - A click stores the reader's choice of edition, which the site's root page follows on
     the next visit. */
(function () {
  var SELECTOR = "a[data-rnndoc-edition]";

  function onScreen(element) {
    var box = element.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  }

  function place() {
    var hash = location.hash;
    var named = null;
    if (hash.length > 1) {
      try {
        named = document.getElementById(decodeURIComponent(hash.slice(1)));
      } catch (error) {
        named = null; /* a malformed %-escape */
      }
    }
    if (named && onScreen(named)) return hash;
    // a line a little below the window's top (under the sticky header)
    var line = Math.min(96, window.innerHeight / 4);
    var reading = null;
    var sections = document.querySelectorAll("main section[id]");
    for (var i = 0; i < sections.length; i++) {
      // document order: a section's subsections come after it, the last one passed is innermost
      if (sections[i].getBoundingClientRect().top <= line) reading = sections[i];
    }
    if (reading && window.scrollY > 0) return "#" + encodeURIComponent(reading.id);
    return hash;
  }

  function update(link) {
    if (!link.hasAttribute("data-rnndoc-href")) {
      link.setAttribute("data-rnndoc-href", link.getAttribute("href").split("#")[0]);
    }
    link.setAttribute("href", link.getAttribute("data-rnndoc-href") + location.search + place());
  }

  function follow(event) {
    var link = event.target.closest && event.target.closest(SELECTOR);
    if (!link) return;
    update(link);
    if (event.type !== "click") return;
    try {
      window.localStorage.setItem("rnndoc-edition", link.getAttribute("data-rnndoc-edition"));
    } catch (error) {
      /* storage refused (private mode, file://): the link still works */
    }
  }

  ["pointerdown", "focusin", "contextmenu", "click"].forEach(function (type) {
    document.addEventListener(type, follow, true);
  });
})();
