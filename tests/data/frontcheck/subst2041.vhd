-- GHDL bug ghdl/ghdl#2041 without a latch: a DNA substitution-row select. A 5-bit index (a pair of bases)
-- chooses one of 24 six-bit rows of the 144-bit parameter input rows (row i = rows(6i+5 downto 6i));
-- indices 24..31 give "000000". Written as a case in a clocked process with the row select under
-- 'when others', GHDL 2.0.0's Verilog keeps only the branch "000000" (no default): the latch Yosys
-- infers for it only ever loads zeros, so Yosys folds it into the constant 0 — no latch is left,
-- and row is 0 for every index. Only a simulation against the VHDL can see that.
-- first = rows(5 downto 0) xor idx, registered, is right in GHDL's Verilog (it keeps the parameter
-- in the logic after the front end).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity subst2041 is
  port (
    clk   : in  std_logic;
    rst   : in  std_logic;
    idx   : in  std_logic_vector(4 downto 0);
    rows  : in  std_logic_vector(143 downto 0);  --PARAM
    row   : out std_logic_vector(5 downto 0);
    first : out std_logic_vector(5 downto 0)
  );
end entity;

architecture rtl of subst2041 is
begin
  process (clk)
    variable i : natural range 0 to 31;
  begin
    if rising_edge(clk) then
      i := to_integer(unsigned(idx));
      if rst = '1' then
        row <= (others => '0');
      else
        case i is
          when 24 to 31 => row <= "000000";
          when others   => row <= rows(6*i+5 downto 6*i);
        end case;
      end if;
      first <= rows(5 downto 0) xor ('0' & idx);
    end if;
  end process;
end architecture;
