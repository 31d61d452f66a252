import { Alert } from '@mui/material';
import { errorText } from '../lib/error-text';

/** The server's complaint about a form, shown atop it (spec 5). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert severity="error" sx={{ mb: 2 }} role="alert">
      {errorText(error)}
    </Alert>
  );
}
