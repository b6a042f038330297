// The console's help pages: only their language (they need nobody signed in).

import { startLanguage } from "./i18n.js";

startLanguage().then(() => { document.body.dataset.ready = "true"; });
