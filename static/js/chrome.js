// The page chrome the main page and /compare share: the help panel, the language switch, Copy link and
// the presentation button. Each page says what its link is and how it turns presentation on and off.

const $ = (id) => document.getElementById(id);

/** Show or hide the help panel (? and Esc; its button says whether it is open). */
export function toggleHelp(show) {
  const help = $("help");
  help.hidden = show === undefined ? !help.hidden : !show;
  $("help-toggle").setAttribute("aria-expanded", String(!help.hidden));
}

/**
 * Wire the shared buttons. t: the page's words; sharePath(): the canonical link of what the page shows;
 * pathWithLanguage(lang): that link in another language (the whole page is loaded anew, a new history entry,
 * so Back returns to this one); togglePresent(): presentation mode on or off.
 */
export function wireChrome({ t, sharePath, pathWithLanguage, togglePresent }) {
  $("present-toggle").addEventListener("click", togglePresent);
  $("help-toggle").addEventListener("click", () => toggleHelp());
  $("help-close").addEventListener("click", () => toggleHelp(false));
  $("lang-switch").addEventListener("click", (event) => {
    event.preventDefault();
    location.assign(pathWithLanguage(event.currentTarget.dataset.lang));
  });
  $("copy-link").addEventListener("click", async () => {
    const link = location.origin + sharePath();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      /* clipboard refused (insecure context): the link is shown below instead */
    }
    $("status").textContent = `${t.copied}${t.colon}${link}`;
    $("copy-link").dataset.link = link;
  });
}
