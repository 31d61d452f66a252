import AddIcon from '@mui/icons-material/Add';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import { Button, Divider, ListItemText, Menu, MenuItem } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { InventoryKind } from '../inventory-kinds';

/** The New inventory button: a menu of kinds (Ansible inventory; Terraform and OpenTofu workspaces). */
export function NewInventoryMenu({ onChoose }: { onChoose(kind: InventoryKind): void }) {
  const { t } = useTranslation();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const choose = (kind: InventoryKind) => {
    setAnchor(null);
    onChoose(kind);
  };
  const item = (kind: InventoryKind) => (
    <MenuItem onClick={() => choose(kind)}>
      <ListItemText primary={t(`inventories.kinds.${kind}`)} secondary={t(`inventories.kindHelp.${kind}`)} />
    </MenuItem>
  );
  return (
    <>
      <Button
        variant="contained"
        startIcon={<AddIcon />}
        endIcon={<ArrowDropDownIcon />}
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : undefined}
        onClick={(e) => setAnchor(e.currentTarget)}
      >
        {t('inventories.new')}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} transformOrigin={{ vertical: 'top', horizontal: 'right' }}>
        {item('ansible')}
        <Divider />
        {item('terraform')}
        {item('tofu')}
      </Menu>
    </>
  );
}
