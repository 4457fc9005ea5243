--TMAP
-- Written in the published TLUT flow's style: --TMAP at the top of the file, a --PARAM line
-- before and after the parameter ports, more --PARAM blocks around signals and port maps.
-- y = rows(sel) and mask, registered; rows(i) = table(WIDTH*i+WIDTH-1 downto WIDTH*i);
-- sel >= ROWS gives 0.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.rowsel_pkg.all;

entity rowsel is
  port (
    clk   : in  std_logic;
    sel   : in  std_logic_vector(2 downto 0);
--PARAM
    table : in  std_logic_vector(ROWS*WIDTH-1 downto 0);
    mask  : in  std_logic_vector(WIDTH-1 downto 0);
--PARAM
    y     : out std_logic_vector(WIDTH-1 downto 0)
  );
end rowsel;

architecture rtl of rowsel is
--PARAM
  signal m : std_logic_vector(WIDTH-1 downto 0);
--PARAM
  signal row, masked : std_logic_vector(WIDTH-1 downto 0);
begin
--PARAM
  m <= mask;
--PARAM
  process (sel, table)
    variable i : integer;
  begin
    row <= (others => '0');
    i := to_integer(unsigned(sel));
    if i < ROWS then
      row <= table(WIDTH*i+WIDTH-1 downto WIDTH*i);
    end if;
  end process;

  u_mask : entity work.rowsel_mask
    port map (
      row  => row,
--PARAM
      mask => m,
--PARAM
      y    => masked
    );

  process (clk)
  begin
    if rising_edge(clk) then
      y <= masked;
    end if;
  end process;
end rtl;
