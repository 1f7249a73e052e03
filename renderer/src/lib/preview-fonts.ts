// Metric-compatible stand-ins for Office's fonts in the preview, shipped with the app (SIL OFL / Apache licences,
// from @fontsource), so a page breaks and a line wraps where LibreOffice breaks them: Carlito for Calibri, Caladea
// for Cambria, Arimo/Tinos/Cousine (the metrics of Liberation Sans/Serif/Mono) for Arial, Times New Roman and
// Courier New, and Cousine for Consolas and other code fonts. Registered under the Office names through the FontFace
// API (the CSP allows fonts from 'self'); the preview's shadow root uses document fonts.
import arimo400 from '@fontsource/arimo/files/arimo-latin-400-normal.woff2';
import arimo400i from '@fontsource/arimo/files/arimo-latin-400-italic.woff2';
import arimo700 from '@fontsource/arimo/files/arimo-latin-700-normal.woff2';
import arimo700i from '@fontsource/arimo/files/arimo-latin-700-italic.woff2';
import caladea400 from '@fontsource/caladea/files/caladea-latin-400-normal.woff2';
import caladea400i from '@fontsource/caladea/files/caladea-latin-400-italic.woff2';
import caladea700 from '@fontsource/caladea/files/caladea-latin-700-normal.woff2';
import caladea700i from '@fontsource/caladea/files/caladea-latin-700-italic.woff2';
import carlito400 from '@fontsource/carlito/files/carlito-latin-400-normal.woff2';
import carlito400i from '@fontsource/carlito/files/carlito-latin-400-italic.woff2';
import carlito700 from '@fontsource/carlito/files/carlito-latin-700-normal.woff2';
import carlito700i from '@fontsource/carlito/files/carlito-latin-700-italic.woff2';
import cousine400 from '@fontsource/cousine/files/cousine-latin-400-normal.woff2';
import cousine400i from '@fontsource/cousine/files/cousine-latin-400-italic.woff2';
import cousine700 from '@fontsource/cousine/files/cousine-latin-700-normal.woff2';
import cousine700i from '@fontsource/cousine/files/cousine-latin-700-italic.woff2';
import tinos400 from '@fontsource/tinos/files/tinos-latin-400-normal.woff2';
import tinos400i from '@fontsource/tinos/files/tinos-latin-400-italic.woff2';
import tinos700 from '@fontsource/tinos/files/tinos-latin-700-normal.woff2';
import tinos700i from '@fontsource/tinos/files/tinos-latin-700-italic.woff2';

type Faces = [regular: string, italic: string, bold: string, boldItalic: string];

const CARLITO: Faces = [carlito400, carlito400i, carlito700, carlito700i];
const CALADEA: Faces = [caladea400, caladea400i, caladea700, caladea700i];
const ARIMO: Faces = [arimo400, arimo400i, arimo700, arimo700i];
const TINOS: Faces = [tinos400, tinos400i, tinos700, tinos700i];
const COUSINE: Faces = [cousine400, cousine400i, cousine700, cousine700i];

/** Office font name → the shipped stand-in. */
export const PREVIEW_FONTS: Record<string, Faces> = {
  Calibri: CARLITO,
  'Calibri Light': CARLITO,
  Carlito: CARLITO,
  Cambria: CALADEA,
  Caladea: CALADEA,
  Arial: ARIMO,
  Helvetica: ARIMO,
  'Liberation Sans': ARIMO,
  'Times New Roman': TINOS,
  Times: TINOS,
  'Liberation Serif': TINOS,
  'Courier New': COUSINE,
  Courier: COUSINE,
  'Liberation Mono': COUSINE,
  Consolas: COUSINE,
  'Source Code Pro': COUSINE,
  Menlo: COUSINE,
  Monaco: COUSINE,
  'Lucida Console': COUSINE,
};

let loaded: Promise<void> | undefined;

/** Registers the stand-ins once and waits until they can be used (a failed file leaves the browser's fallback). */
export function loadPreviewFonts(): Promise<void> {
  loaded ??= (async () => {
    const faces: FontFace[] = [];
    for (const [family, [regular, italic, bold, boldItalic]] of Object.entries(PREVIEW_FONTS)) {
      faces.push(
        new FontFace(family, `url(${regular})`, { weight: '400', style: 'normal' }),
        new FontFace(family, `url(${italic})`, { weight: '400', style: 'italic' }),
        new FontFace(family, `url(${bold})`, { weight: '700', style: 'normal' }),
        new FontFace(family, `url(${boldItalic})`, { weight: '700', style: 'italic' }),
      );
    }
    await Promise.all(
      faces.map(async (face) => {
        try {
          document.fonts.add(await face.load());
        } catch {
          // The browser's own fallback is used for this face.
        }
      }),
    );
  })();
  return loaded;
}
