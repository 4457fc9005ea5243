-- A correct VHDL design for the front-end check with record ports (types in fc_records_pkg.vhd),
-- a TCAM-like row of two entries: GHDL's synthesis makes one port of each record field (ent_val,
-- ent_mask, ent_fl, res_hit, res_idx, res_fl) and one vector of a whole array of records (tab,
-- tab_q). key (a subtype of std_logic_vector) is the parameter input.
--   res.hit  (combinational) = '1' when ent.val and ent.mask equal key and ent.mask;
--   res.idx  (registered)    = the index (0 or 1) of the first entry of tab that matches key under
--                              its mask, 3 when none does;
--   res.fl   (registered)    = up: ent.fl.up rotated left by one (ent.fl.up(1), up(2), up(0)),
--                              b: ent.fl.b xor tab(1).fl.b;
--   tab_q    (registered)    = tab with its two entries swapped and entry 0's val xor key;
--   y        (registered)    = tab(0).val + ent.mask + 1 (4 bits).
-- Every register is reset by rst_n (asynchronous, active low), so every output bit is defined
-- from the first cycle on.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.fc_records_pkg.all;

entity fc_records is
  port (
    clk   : in  std_logic;
    rst_n : in  std_logic;
    key   : in  nib_t;                  --PARAM
    ent   : in  entry_t;
    tab   : in  entries_t;
    res   : out result_t;
    tab_q : out entries_t;
    y     : out std_logic_vector(3 downto 0)
  );
end entity;

architecture rtl of fc_records is
  function matches(e : entry_t; k : nib_t) return boolean is
  begin
    return (e.val and std_logic_vector(e.mask)) = (k and std_logic_vector(e.mask));
  end function;
begin
  res.hit <= '1' when matches(ent, key) else '0';

  process (clk, rst_n)
  begin
    if rst_n = '0' then
      res.idx <= (others => '0');
      res.fl <= (up => "000", b => '0');
      tab_q <= (others => (val => "0000", mask => "0000", fl => (up => "000", b => '0')));
      y <= (others => '0');
    elsif rising_edge(clk) then
      if matches(tab(0), key) then
        res.idx <= "00";
      elsif matches(tab(1), key) then
        res.idx <= "01";
      else
        res.idx <= "11";
      end if;
      res.fl.up <= ent.fl.up(1) & ent.fl.up(2) & ent.fl.up(0);
      res.fl.b <= ent.fl.b xor tab(1).fl.b;
      tab_q(0) <= tab(1);
      tab_q(0).val <= tab(1).val xor key;
      tab_q(1) <= tab(0);
      y <= std_logic_vector(unsigned(tab(0).val) + ent.mask + 1);
    end if;
  end process;
end architecture;
