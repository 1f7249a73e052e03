import type { MenuItemConstructorOptions } from 'electron';

/** What the tray menu's items do. */
export interface TrayActions {
  open(): void;
  copyApiUrl(): void;
  quit(): void;
}

/** The tray menu: the API's address (for reading), then Open, Copy API URL and Quit. */
export function trayMenuTemplate(apiUrl: string, actions: TrayActions): MenuItemConstructorOptions[] {
  return [
    { label: `API at ${apiUrl}`, enabled: false },
    { type: 'separator' },
    { label: 'Open', click: () => actions.open() },
    { label: 'Copy API URL', click: () => actions.copyApiUrl() },
    { type: 'separator' },
    { label: 'Quit', click: () => actions.quit() },
  ];
}

/** The tray icon's tooltip. */
export function trayTooltip(apiUrl: string): string {
  return `Docwright: the API runs at ${apiUrl}`;
}
