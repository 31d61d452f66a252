import CloudIcon from '@mui/icons-material/CloudOutlined';
import CodeIcon from '@mui/icons-material/Code';
import ExtensionIcon from '@mui/icons-material/ExtensionOutlined';
import PlaybookIcon from '@mui/icons-material/PlaylistPlay';
import TerminalIcon from '@mui/icons-material/Terminal';

/** Icons by an app's `icon` name; anything else (custom apps) gets the generic one. */
const ICONS: Record<string, typeof TerminalIcon> = {
  ansible: PlaybookIcon,
  terraform: CloudIcon,
  tofu: CloudIcon,
  pulumi: CloudIcon,
  bash: TerminalIcon,
  powershell: TerminalIcon,
  python: CodeIcon,
};

export function AppIcon({ icon }: { icon: string }) {
  const Icon = ICONS[icon] ?? ExtensionIcon;
  return <Icon fontSize="small" color="action" />;
}
