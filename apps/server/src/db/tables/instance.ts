/** An instance-wide setting an admin changes (migration 022); `value` is JSON text. */
export interface InstanceSettingTable {
  key: string;
  value: string;
  updated: string;
}

/** At most one row (id 1): a known text sealed with the master key, opened at every start. */
export interface MasterKeyCheckTable {
  id: number;
  sealed: string;
  created: string;
}
