-- GHDL bug ghdl/ghdl#2041, with a latch: a combinational process whose case statement has a 'when others'.
-- GHDL 2.0.0's --synth --out=verilog writes the case without a default, so o_next is held (a latch)
-- when sel is "10" or "11" instead of taking c. The front end must refuse it naming o_next.
library ieee;
use ieee.std_logic_1164.all;

entity latch2041 is
  port (
    clk     : in  std_logic;
    sel     : in  std_logic_vector(1 downto 0);
    a, b, c : in  std_logic_vector(3 downto 0);
    key     : in  std_logic_vector(3 downto 0);  --PARAM
    o       : out std_logic_vector(3 downto 0)
  );
end entity;

architecture rtl of latch2041 is
  signal o_next : std_logic_vector(3 downto 0);
begin
  process (sel, a, b, c)
  begin
    case sel is
      when "00"   => o_next <= a;
      when "01"   => o_next <= b;
      when others => o_next <= c;
    end case;
  end process;

  process (clk)
  begin
    if rising_edge(clk) then
      o <= o_next xor key;
    end if;
  end process;
end architecture;
