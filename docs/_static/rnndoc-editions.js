/* The edition switcher (docs/_templates/rnndoc-edition.html): a click stores the reader's
   choice of edition, which the site's root page follows on the next visit. */
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a[data-rnndoc-edition]");
  if (!link) return;
  try {
    window.localStorage.setItem("rnndoc-edition", link.getAttribute("data-rnndoc-edition"));
  } catch (error) {
    /* storage refused (private mode, file://): the link still works */
  }
});
