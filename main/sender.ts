import { isServerUrl } from './navigation.ts';

/** What the main process knows about the sender of an IPC message. */
export interface IpcSender {
  /** URL of the frame that sent it; undefined when the frame is gone (navigated or destroyed). */
  frameUrl: string | undefined;
  /** Whether that frame is the top frame of its page (not an iframe). */
  isTopFrame: boolean;
  /** Id of the webContents the frame belongs to. */
  webContentsId: number;
}

/**
 * Whether to act on an IPC message: it must come from the top frame of our own window, showing a page of the
 * local server. Anything else (an iframe, another window, a page elsewhere, a vanished frame) is refused.
 */
export function isTrustedSender(
  sender: IpcSender,
  trusted: { serverOrigin: string; webContentsId: number | undefined },
): boolean {
  return (
    trusted.webContentsId !== undefined &&
    sender.webContentsId === trusted.webContentsId &&
    sender.isTopFrame &&
    isServerUrl(sender.frameUrl, trusted.serverOrigin)
  );
}
