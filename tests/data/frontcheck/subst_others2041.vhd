-- GHDL bug ghdl/ghdl#2041, with a latch, in a clocked process: a DNA substitution-row select as one would
-- write it, rows 0..23 of the 144-bit parameter input and 'when others => "000000"'. GHDL 2.0.0's
-- Verilog keeps the row select without a default, so the row's next value is held (a latch) for
-- indices 24..31 instead of being "000000". The front end must refuse it, naming the case's line.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity subst_others2041 is
  port (
    clk  : in  std_logic;
    idx  : in  std_logic_vector(4 downto 0);
    rows : in  std_logic_vector(143 downto 0);  --PARAM
    row  : out std_logic_vector(5 downto 0)
  );
end entity;

architecture rtl of subst_others2041 is
begin
  process (clk)
    variable i : natural range 0 to 31;
  begin
    if rising_edge(clk) then
      i := to_integer(unsigned(idx));
      case i is
        when 0 to 23 => row <= rows(6*i+5 downto 6*i);
        when others  => row <= "000000";
      end case;
    end if;
  end process;
end architecture;
