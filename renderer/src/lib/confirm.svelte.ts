// One confirmation dialog for the whole app (`await confirmAction(...)`), shown by <ConfirmHost /> in App.

export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}

class ConfirmState {
  current = $state<ConfirmRequest | null>(null);
}

export const confirmState = new ConfirmState();

/** Asks the user to confirm a destructive action; resolves false when dismissed. */
export function confirmAction(title: string, message: string, confirmLabel: string): Promise<boolean> {
  confirmState.current?.resolve(false);
  return new Promise((resolve) => {
    confirmState.current = { title, message, confirmLabel, resolve };
  });
}
