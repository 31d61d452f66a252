import VpnKeyIcon from '@mui/icons-material/VpnKeyOutlined';
import { Box, Button, Stack } from '@mui/material';
import type { LoginInfo } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

interface ProviderButtonsProps {
  providers: LoginInfo['oidc_providers'];
  /** Where to land after signing in (a path of this site; the server checks it again). */
  redirect: string | null;
}

/** An image URL as the provider's icon; anything else gets the generic key icon. */
function isImageUrl(icon: string): boolean {
  return /^(https?:\/\/|\/|data:image\/)/.test(icon);
}

/** One sign-in button per external provider; each is a plain link into the server's redirect flow. */
export function ProviderButtons({ providers, redirect }: ProviderButtonsProps) {
  const { t } = useTranslation();
  if (providers.length === 0) return null;
  const query = redirect ? `?redirect=${encodeURIComponent(redirect)}` : '';
  return (
    <Stack spacing={1}>
      {providers.map((p) => (
        <Button
          key={p.id}
          variant="outlined"
          size="large"
          href={`/api/auth/oidc/${encodeURIComponent(p.id)}/login${query}`}
          startIcon={p.icon && isImageUrl(p.icon) ? <Box component="img" src={p.icon} alt="" sx={{ width: 20, height: 20 }} /> : <VpnKeyIcon />}
          // The provider's colour marks the frame and icon; the text keeps the theme's readable colour.
          sx={p.color ? { borderColor: p.color, color: 'text.primary', '& .MuiButton-startIcon': { color: p.color } } : undefined}
        >
          {t('auth.signInWith', { name: p.name })}
        </Button>
      ))}
    </Stack>
  );
}
