import { Box, CircularProgress, FormLabel } from '@mui/material';
import { lazy, Suspense } from 'react';

export type CodeLanguage = 'yaml' | 'ini' | 'json';

export interface CodeEditorProps {
  label: string;
  value: string;
  onChange?(v: string): void;
  language: CodeLanguage;
  error?: boolean;
  helperText?: string;
  minHeight?: number;
  /** Shows text that cannot be changed. */
  readOnly?: boolean;
}

// CodeMirror is large: it loads when a screen first shows an editor, not with the screen.
const CodeEditorView = lazy(async () => ({ default: (await import('./code-editor-view')).CodeEditorView }));

/** A small code editor with highlighting for YAML, INI or JSON; dark when the theme is. */
export function CodeEditor(props: CodeEditorProps) {
  const minHeight = props.minHeight ?? 160;
  return (
    <Suspense
      fallback={
        <Box aria-busy="true">
          <FormLabel sx={{ fontSize: 13 }}>{props.label}</FormLabel>
          <Box sx={{ mt: 0.5, border: 1, borderColor: 'divider', borderRadius: 1, minHeight, display: 'grid', placeItems: 'center' }}>
            <CircularProgress size={20} />
          </Box>
        </Box>
      }
    >
      <CodeEditorView {...props} />
    </Suspense>
  );
}
